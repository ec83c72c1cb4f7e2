package fixcheck

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vulnbench/vulnbench/internal/grade"
	"github.com/vulnbench/vulnbench/internal/suite/appsec/parsers"
)

func TestCheckFix(t *testing.T) {
	c := &Checks{Syntax: parsers.Default()}
	if _, err := exec.LookPath("bandit"); err == nil {
		c.Scanners = []NamedScanner{}
		for _, s := range New().Scanners {
			if s.Name == "bandit" {
				c.Scanners = append(c.Scanners, s)
			}
		}
	}
	const vulnerable = "import subprocess\n\ndef run(cmd):\n    subprocess.call(cmd, shell=True)\n"
	const secure = "import shlex\n\ndef run(cmd):\n    return shlex.split(cmd)\n"
	tests := []struct {
		name, lang, fix string
		secure          string // the record's secure version; "" for secure
		want            grade.FixCheck
		needsBandit     bool
	}{
		{name: "no code proposed", lang: "python", fix: " ", want: grade.FixCheck{Syntax: grade.SyntaxUnchecked, Scanner: grade.ScannerNot, Detail: "no secure code proposed"}},
		{name: "python fix that parses and bandit passes", lang: "python", needsBandit: true,
			fix:  "import shlex\n\ndef run(cmd):\n    return shlex.split(cmd)\n",
			want: grade.FixCheck{Syntax: grade.SyntaxOK, Scanner: grade.ScannerClean, Detail: "scanners: bandit"}},
		{name: "python fix still flagged", lang: "python", needsBandit: true,
			fix:  "import subprocess\n\ndef run(cmd):\n    subprocess.call(cmd.strip(), shell=True)\n",
			want: grade.FixCheck{Syntax: grade.SyntaxOK, Scanner: grade.ScannerFlagged, Detail: "scanners: bandit"}},
		{name: "a scanner that flags the secure version too is not asked", lang: "python", needsBandit: true,
			secure: "import subprocess\n\ndef run(cmd):\n    subprocess.call(['sh', '-c', cmd], shell=True)\n",
			fix:    "import subprocess\n\ndef run(cmd):\n    subprocess.call(cmd.strip(), shell=True)\n",
			want:   grade.FixCheck{Syntax: grade.SyntaxOK, Scanner: grade.ScannerNot}},
		{name: "terraform: parsed by HCL, no scanner", lang: "terraform", fix: "resource \"x\" \"y\" {}",
			want: grade.FixCheck{Syntax: grade.SyntaxOK, Scanner: grade.ScannerNot}},
		{name: "a language without a checker", lang: "cobol", fix: "DISPLAY 'HI'.",
			want: grade.FixCheck{Syntax: grade.SyntaxUnchecked, Scanner: grade.ScannerNot, Detail: "no syntax checker for cobol"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needsBandit && len(c.Scanners) == 0 {
				t.Skip("bandit is not on PATH (scripts/install-deps.sh installs it)")
			}
			sec := tt.secure
			if sec == "" {
				sec = secure
			}
			got := c.CheckFix(context.Background(), tt.lang, vulnerable, sec, tt.fix)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A syntax error is caught by the real parser.
	if got := c.CheckFix(context.Background(), "python", vulnerable, secure, "def run(:\n"); got.Syntax != grade.SyntaxError || !strings.HasPrefix(got.Detail, "line 1, column ") {
		t.Errorf("broken python: syntax %q (%s), want an error on line 1", got.Syntax, got.Detail)
	}
}
