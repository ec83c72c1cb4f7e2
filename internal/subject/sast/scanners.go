package sast

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"math"
	"os/exec"
	"strconv"
	"strings"

	"github.com/vulnbench/vulnbench/internal/progs"
	"github.com/vulnbench/vulnbench/internal/sarif"
	"github.com/vulnbench/vulnbench/internal/verdict"
)

// Scanner is one row of the scanner table: how to ask a tool its version, how to run it on a
// file or a directory, what it reads, how to install it and how to read what it writes.
type Scanner struct {
	Name      string
	Binary    string   // the program looked up on PATH, or its path when it holds a slash
	Languages []string // the case languages it reads
	Install   string   // the command that installs it
	Format    string   // what it writes: sarif, cppcheck-xml, bandit-json
	Summary   string   // one line for --help
	// Levels: its findings carry a hit level 0-5 (their Severity); a case is vul when one reaches
	// --min-level, and the score is the highest level / 5 (flawfinder).
	Levels bool
	// Version returns the tool's version; path is the binary found on PATH.
	Version func(path string) (string, error)
	// Config, when set, is a configuration file the tool runs with (its name and content), so no
	// configuration of the user's or the scanned tree's applies: each scan writes it to a
	// directory of its own and passes its path to Args.
	Config func() (name, content string)
	// Args are the arguments of a scan of target (a file name, or "." for a whole tree) run in
	// the directory holding it, config the path of the Config file ("" without one). Case
	// content never reaches a shell: the program is exec'd.
	Args func(target, config string) []string
	// Ran reports whether an exit code means the tool finished its scan (many exit 1 on findings).
	Ran func(code int) bool
	// Parse reads what the tool wrote; an error means the tool did not finish (a crash, an
	// unreadable file), never "no findings".
	Parse func(stdout, stderr []byte) ([]verdict.Finding, error)
	// Counts reports whether a finding makes a function or snippet case vul (nil: every finding).
	Counts func(verdict.Finding) bool
}

// Scanners is the scanner table, in the order --help lists them.
func Scanners() []Scanner {
	return []Scanner{
		{
			Name: "flawfinder", Binary: "flawfinder", Languages: cLanguages(), Install: "apt-get install flawfinder", Format: "sarif",
			Summary: "flawfinder (SARIF) on C/C++ code; vul when a hit reaches --min-level, score = highest level / 5", Levels: true,
			Version: versionOutput("--version", ""),
			Args: func(target, _ string) []string {
				return []string{"--sarif", "--minlevel=0", "--quiet", "--dataonly", target}
			},
			Ran:   exitZero,
			Parse: func(stdout, stderr []byte) ([]verdict.Finding, error) { return ParseFlawfinderSARIF(stdout, stderr) },
		},
		{
			Name: "cppcheck", Binary: "cppcheck", Languages: cLanguages(), Install: CppcheckInstall, Format: "cppcheck-xml",
			Summary: "cppcheck (XML v2, with CWEs) on C/C++ code; vul when it reports an error or warning about the code",
			Version: versionOutput("--version", "Cppcheck"),
			Args: func(target, _ string) []string {
				return []string{"--xml", "--xml-version=2", "--enable=warning,portability", "--quiet", target}
			},
			Ran: exitZero,
			// cppcheck writes its XML report on stderr.
			Parse:  func(_, stderr []byte) ([]verdict.Finding, error) { return ParseCppcheckXML(stderr) },
			Counts: cppcheckCounts,
		},
		{
			Name: "bandit", Binary: "bandit", Languages: []string{"python", "py"}, Install: "apt-get install bandit", Format: "bandit-json",
			Summary: "bandit (JSON; CWEs from its test ids) on Python code; vul when it reports an issue",
			Version: versionOutput("--version", "bandit"),
			Args: func(target, _ string) []string {
				if target == "." {
					return []string{"-r", "-f", "json", "-q", "."}
				}
				return []string{"-f", "json", "-q", target}
			},
			Ran:   func(code int) bool { return code == 0 || code == 1 }, // 1: issues found
			Parse: func(stdout, _ []byte) ([]verdict.Finding, error) { return ParseBanditJSON(stdout) },
		},
		{
			Name: "gosec", Binary: "gosec", Languages: []string{"go"}, Install: GosecInstall, Format: "sarif",
			Summary: "gosec (SARIF) on Go code; vul when it reports an issue",
			Version: moduleVersion, // a go-installed gosec says "dev" to -version
			Args: func(_, _ string) []string {
				// gosec scans packages: a file case is alone in its directory. Not -quiet: with it,
				// gosec prints no SARIF at all when it finds nothing. Its log goes to stderr.
				return []string{"-fmt", "sarif", "-no-fail", "./..."}
			},
			Ran:   exitZero,
			Parse: parseSARIF("gosec"),
		},
		eslintScanner(progs.NodePrefix()),
	}
}

// GosecInstall is how to get gosec (make test's scripts/install-deps.sh runs it).
const GosecInstall = "go install github.com/securego/gosec/v2/cmd/gosec@v2.30.0"

// LookupScanner finds a row of the table by name.
func LookupScanner(name string) (Scanner, bool) {
	for _, s := range Scanners() {
		if s.Name == name {
			return s, true
		}
	}
	return Scanner{}, false
}

func exitZero(code int) bool { return code == 0 }

// versionOutput runs the binary with arg and keeps its first line, without prefix.
func versionOutput(arg, prefix string) func(string) (string, error) {
	return func(path string) (string, error) {
		out, err := exec.Command(path, arg).Output()
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", path, arg, err)
		}
		return strings.TrimSpace(strings.TrimPrefix(firstLine(string(out)), prefix)), nil
	}
}

// moduleVersion reads the main module's version from a Go binary's build info.
func moduleVersion(path string) (string, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the build info of %s: %w", path, err)
	}
	return bi.Main.Version, nil
}

// parseSARIF reads a tool's SARIF with the lenient reader, every run's findings in order.
func parseSARIF(tool string) func(stdout, stderr []byte) ([]verdict.Finding, error) {
	return func(stdout, stderr []byte) ([]verdict.Finding, error) {
		l, err := sarif.Parse(stdout)
		if err != nil {
			return nil, fmt.Errorf("%s output: %w: %s", tool, err, firstLine(string(stderr)))
		}
		var fs []verdict.Finding
		for _, r := range l.Runs {
			fs = append(fs, r.Findings...)
		}
		return fs, nil
	}
}

func cppcheckCounts(f verdict.Finding) bool {
	return (f.Severity == "error" || f.Severity == "warning") && !cppcheckSelf(f.Rule)
}

// ParseFlawfinderSARIF reads flawfinder's --sarif output. Each finding keeps what the CSV
// reader gave before (rule: the hit's name, severity: its level 0-5), so verdicts did not change
// with the format: the level is the result's rank times 5, the name the part of the rule name
// after its category ("buffer/strcpy" → "strcpy"). flawfinder exits non-zero and prints text, not
// SARIF, when it cannot decode a file: the exit code or this reader makes that an error.
func ParseFlawfinderSARIF(stdout, stderr []byte) ([]verdict.Finding, error) {
	fs, err := parseSARIF("flawfinder")(stdout, stderr)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Runs []struct {
			Results []struct {
				Rank    *float64 `json:"rank"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(stdout, &raw); err != nil {
		return nil, fmt.Errorf("flawfinder output: %w", err)
	}
	i := 0
	for _, r := range raw.Runs {
		for _, res := range r.Results {
			if i >= len(fs) {
				return nil, fmt.Errorf("flawfinder output: more results than findings")
			}
			if res.Rank == nil {
				return nil, fmt.Errorf("flawfinder output: result %d has no rank (is this flawfinder 2.x?)", i)
			}
			level := int(math.Round(*res.Rank * 5))
			name, _, _ := strings.Cut(res.Message.Text, ":")
			if j := strings.LastIndexByte(name, '/'); j >= 0 {
				name = name[j+1:]
			}
			f := &fs[i]
			f.Rule, f.Severity, f.Message = name, strconv.Itoa(level), fmt.Sprintf("%s (level %d)", name, level)
			i++
		}
	}
	return fs, nil
}

// banditCWE maps bandit's test ids to CWEs: Debian's bandit 1.6.2 reports none. The ids are
// those `bandit -h` lists; the CWEs follow the mapping later bandit releases ship
// (bandit/core/issue.py), so scores agree with a newer bandit's own output.
func banditCWE() map[string]string {
	return map[string]string{
		"B101": "CWE-703", "B102": "CWE-78", "B103": "CWE-732", "B104": "CWE-605", "B105": "CWE-259",
		"B106": "CWE-259", "B107": "CWE-259", "B108": "CWE-377", "B110": "CWE-703", "B112": "CWE-703",
		"B201": "CWE-94", "B301": "CWE-502", "B302": "CWE-502", "B303": "CWE-327", "B304": "CWE-327",
		"B305": "CWE-327", "B306": "CWE-377", "B307": "CWE-78", "B308": "CWE-80", "B309": "CWE-295",
		"B310": "CWE-22", "B311": "CWE-330", "B312": "CWE-319", "B313": "CWE-20", "B314": "CWE-20",
		"B315": "CWE-20", "B316": "CWE-20", "B317": "CWE-20", "B318": "CWE-20", "B319": "CWE-20",
		"B320": "CWE-20", "B321": "CWE-319", "B322": "CWE-78", "B323": "CWE-295", "B324": "CWE-327",
		"B325": "CWE-377", "B401": "CWE-319", "B402": "CWE-319", "B403": "CWE-502", "B404": "CWE-78",
		"B405": "CWE-20", "B406": "CWE-20", "B407": "CWE-20", "B408": "CWE-20", "B409": "CWE-20",
		"B410": "CWE-20", "B411": "CWE-20", "B412": "CWE-284", "B413": "CWE-327", "B501": "CWE-295",
		"B502": "CWE-327", "B503": "CWE-327", "B504": "CWE-327", "B505": "CWE-326", "B506": "CWE-20",
		"B507": "CWE-295", "B601": "CWE-78", "B602": "CWE-78", "B603": "CWE-78", "B604": "CWE-78",
		"B605": "CWE-78", "B606": "CWE-78", "B607": "CWE-78", "B608": "CWE-89", "B609": "CWE-155",
		"B610": "CWE-89", "B611": "CWE-89", "B701": "CWE-94", "B702": "CWE-80", "B703": "CWE-80",
	}
}

// ParseBanditJSON reads bandit's -f json report: one finding per result at its line_number,
// its CWE from the test id. line_range is not used: bandit 1.6.2 extends it over the lines after
// a statement (an import on line 1 gets [1, 2, 3]), which would match cases it does not concern. A report with errors (a file bandit could not parse or read) is an error.
func ParseBanditJSON(b []byte) ([]verdict.Finding, error) {
	var doc struct {
		Errors []struct {
			Filename string `json:"filename"`
			Reason   string `json:"reason"`
		} `json:"errors"`
		Results *[]struct {
			Filename   string `json:"filename"`
			Line       int    `json:"line_number"`
			TestID     string `json:"test_id"`
			TestName   string `json:"test_name"`
			Severity   string `json:"issue_severity"`
			Confidence string `json:"issue_confidence"`
			Text       string `json:"issue_text"`
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("bandit output is not its JSON report (%v): %s", err, firstLine(string(b)))
	}
	if doc.Results == nil {
		return nil, fmt.Errorf("bandit output has no results list (is this bandit -f json?)")
	}
	if len(doc.Errors) > 0 {
		return nil, fmt.Errorf("bandit could not scan %s: %s", doc.Errors[0].Filename, doc.Errors[0].Reason)
	}
	var out []verdict.Finding
	cwes := banditCWE()
	for _, r := range *doc.Results {
		f := verdict.Finding{File: sarif.NormalizePath(r.Filename), StartLine: r.Line, EndLine: r.Line, Rule: r.TestID,
			Severity: strings.ToLower(r.Severity), Message: r.Text}
		if c, ok := cwes[r.TestID]; ok {
			f.CWE = []string{c}
		}
		out = append(out, f)
	}
	return out, nil
}
