package sast

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vulnbench/vulnbench/internal/verdict"
)

// ESLintInstall is how to get eslint, eslint-plugin-security and the SARIF formatter into the
// prefix (make test's scripts/install-deps.sh runs it when eslint is missing).
const ESLintInstall = `npm install --prefix "${VULNBENCH_NODE:-$HOME/.cache/vulnbench/node}" --no-audit --no-fund eslint@10.15.0 eslint-plugin-security@4.1.0 @microsoft/eslint-formatter-sarif@3.1.0`

// eslintScanner is the eslint row: eslint with eslint-plugin-security's recommended rules, run
// from the prefix with a config of ours (no config lookup, no inline configuration comments:
// the scanned code cannot turn a rule off), its report written by the SARIF formatter.
func eslintScanner(prefix string) Scanner {
	modules := filepath.Join(prefix, "node_modules")
	return Scanner{
		Name: "eslint", Binary: filepath.Join(modules, ".bin", "eslint"), Languages: []string{"javascript", "js", "typescript", "ts"},
		Summary: "eslint with eslint-plugin-security's recommended rules (SARIF; CWEs from its rule ids) on JavaScript/TypeScript code, run from vulnbench's npm prefix; vul when it reports an issue",
		Install: ESLintInstall, Format: "sarif",
		Version: eslintVersion,
		Config:  func() (string, string) { return "eslint.config.cjs", eslintConfig(modules) },
		Args: func(target, config string) []string {
			return []string{"--config", config, "--no-config-lookup", "--no-inline-config", "--no-error-on-unmatched-pattern",
				"--format", filepath.Join(modules, "@microsoft", "eslint-formatter-sarif", "sarif.js"), target}
		},
		Ran:   func(code int) bool { return code == 0 || code == 1 }, // 1: a rule set to error fired; 2: eslint failed
		Parse: ParseESLintSARIF,
	}
}

// eslintConfig is our flat config. The plugin is required from the prefix by its absolute
// location (a bare import would resolve from the config's temporary directory); the path is
// written as a JSON string, which is a JavaScript string literal.
func eslintConfig(modules string) string {
	dir, _ := json.Marshal(modules + string(filepath.Separator))
	return `// Written by vulnbench for one scan: eslint-plugin-security's recommended rules, nothing else.
const { createRequire } = require("node:module");
const security = createRequire(` + string(dir) + `)("eslint-plugin-security");
module.exports = [
  { files: ["**/*.js", "**/*.cjs", "**/*.mjs", "**/*.ts", "**/*.cts", "**/*.mts"] },
  security.configs.recommended,
];
`
}

// eslintVersion is eslint's version with the plugin's, which decides what is found:
// "10.15.0 (eslint-plugin-security 4.1.0)".
func eslintVersion(path string) (string, error) {
	v, err := versionOutput("--version", "v")(path)
	if err != nil {
		return "", err
	}
	// path is PREFIX/node_modules/.bin/eslint.
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(path)), "eslint-plugin-security", "package.json"))
	if err != nil {
		return "", fmt.Errorf("eslint-plugin-security is not installed beside eslint: %w", err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil || pkg.Version == "" {
		return "", fmt.Errorf("eslint-plugin-security's package.json names no version")
	}
	return fmt.Sprintf("%s (eslint-plugin-security %s)", v, pkg.Version), nil
}

// eslintCWE maps eslint-plugin-security's rules (4.1.0), which carry no CWE, to the weakness
// each one looks for. Written here from the rules' documentation; where the fit is loose the
// comment says so.
func eslintCWE(rule string) string {
	switch strings.TrimPrefix(rule, "security/") {
	case "detect-eval-with-expression":
		return "CWE-95" // eval injection
	case "detect-child-process":
		return "CWE-78"
	case "detect-non-literal-fs-filename":
		return "CWE-22"
	case "detect-unsafe-regex", "detect-non-literal-regexp":
		return "CWE-1333" // ReDoS; a non-literal RegExp is also CWE-625-ish, ReDoS is what the rule warns of
	case "detect-non-literal-require":
		return "CWE-829"
	case "detect-object-injection":
		return "CWE-915" // obj[userKey] = ...; prototype pollution (CWE-1321) is the usual exploit, a child of 915
	case "detect-possible-timing-attacks":
		return "CWE-208"
	case "detect-pseudoRandomBytes":
		return "CWE-338"
	case "detect-buffer-noassert":
		return "CWE-119"
	case "detect-disable-mustache-escape":
		return "CWE-79"
	case "detect-no-csrf-before-method-override":
		return "CWE-352"
	case "detect-bidi-characters", "detect-invisible-characters":
		return "CWE-1007" // Trojan Source; unsure: no CWE names invisible characters in source, 1007 is the closest
	case "detect-new-buffer":
		return "CWE-908" // new Buffer(n) hands out uninitialised memory; unsure (not CWE-1321, which is prototype pollution)
	}
	return ""
}

// ParseESLintSARIF reads the SARIF of @microsoft/eslint-formatter-sarif: eslint's findings, each
// with the CWE of its rule. A file eslint could not parse is reported by the formatter as an
// error notification, not a result, with executionSuccessful false: that is an error, never
// "no findings".
func ParseESLintSARIF(stdout, stderr []byte) ([]verdict.Finding, error) {
	fs, err := parseSARIF("eslint")(stdout, stderr)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Runs []struct {
			Invocations []struct {
				Notifications []eslintNotification `json:"toolConfigurationNotifications"`
				Execution     []eslintNotification `json:"toolExecutionNotifications"`
				Successful    *bool                `json:"executionSuccessful"`
			} `json:"invocations"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(stdout, &raw); err != nil {
		return nil, fmt.Errorf("eslint output: %w", err)
	}
	for _, r := range raw.Runs {
		for _, inv := range r.Invocations {
			for _, n := range append(inv.Notifications, inv.Execution...) {
				if n.Level == "error" {
					return nil, fmt.Errorf("eslint could not scan %s: %s", n.where(), n.Message.Text)
				}
			}
			if inv.Successful != nil && !*inv.Successful {
				return nil, fmt.Errorf("eslint reports its run unsuccessful")
			}
		}
	}
	for i := range fs {
		if c := eslintCWE(fs[i].Rule); c != "" {
			fs[i].CWE = []string{c}
		}
	}
	return fs, nil
}

type eslintNotification struct {
	Level   string `json:"level"`
	Message struct {
		Text string `json:"text"`
	} `json:"message"`
	Locations []struct {
		Physical struct {
			Artifact struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region struct {
				StartLine int `json:"startLine"`
			} `json:"region"`
		} `json:"physicalLocation"`
	} `json:"locations"`
}

func (n eslintNotification) where() string {
	if len(n.Locations) == 0 {
		return "a file"
	}
	p := n.Locations[0].Physical
	return fmt.Sprintf("%s:%d", filepath.Base(p.Artifact.URI), p.Region.StartLine)
}
