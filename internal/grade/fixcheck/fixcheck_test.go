package fixcheck

import (
	"context"
	"os"
	"os/exec"
	"slices"
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
			got := c.Check(context.Background(), tt.lang, vulnerable, sec, tt.fix)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// A syntax error is caught by the real parser.
	if got := c.Check(context.Background(), "python", vulnerable, secure, "def run(:\n"); got.Syntax != grade.SyntaxError || !strings.HasPrefix(got.Detail, "line 1, column ") {
		t.Errorf("broken python: syntax %q (%s), want an error on line 1", got.Syntax, got.Detail)
	}
}

// Go fixes are checked by gosec in the sandbox over one build cache the scans share: the
// vulnerable snippet is flagged, its secure version not, a fix that keeps the shell is flagged
// and one that drops it is clean.
func TestGoFixesShareOneBuildCache(t *testing.T) {
	if _, err := exec.LookPath("gosec"); err != nil {
		t.Skip("gosec is not on PATH (scripts/install-deps.sh installs it)")
	}
	if testing.Short() {
		t.Skip("compiles the standard library's export data once")
	}
	c := New()
	defer c.Close()
	c.Scanners = slices.DeleteFunc(c.Scanners, func(s NamedScanner) bool { return s.Name != "gosec" })
	if len(c.Scanners) != 1 || c.goCache == "" {
		t.Fatalf("gosec not found, or no shared cache (%q)", c.goCache)
	}
	const vulnerable = "package run\n\nimport (\n\t\"net/http\"\n\t\"os/exec\"\n)\n\nfunc Handle(w http.ResponseWriter, r *http.Request) {\n\tout, _ := exec.Command(\"sh\", \"-c\", \"ls \"+r.URL.Query().Get(\"dir\")).Output()\n\tw.Write(out)\n}\n"
	const secure = "package run\n\nimport (\n\t\"net/http\"\n\t\"os\"\n)\n\nfunc Handle(w http.ResponseWriter, r *http.Request) {\n\tes, err := os.ReadDir(\"/srv/files\")\n\tif err != nil {\n\t\thttp.Error(w, \"cannot list\", http.StatusInternalServerError)\n\t\treturn\n\t}\n\tfor _, e := range es {\n\t\tif _, err := w.Write([]byte(e.Name() + \"\\n\")); err != nil {\n\t\t\treturn\n\t\t}\n\t}\n}\n"
	const stillShell = "package run\n\nimport (\n\t\"net/http\"\n\t\"os/exec\"\n\t\"strings\"\n)\n\nfunc Handle(w http.ResponseWriter, r *http.Request) {\n\tout, err := exec.Command(\"sh\", \"-c\", \"ls \"+strings.TrimSpace(r.URL.Query().Get(\"dir\"))).Output()\n\tif err != nil {\n\t\thttp.Error(w, \"cannot list\", http.StatusInternalServerError)\n\t\treturn\n\t}\n\tif _, err := w.Write(out); err != nil {\n\t\treturn\n\t}\n}\n"
	ctx := context.Background()
	for _, tc := range []struct {
		fix  string
		want string
	}{{secure, grade.ScannerClean}, {stillShell, grade.ScannerFlagged}} {
		got := c.Check(ctx, "go", vulnerable, secure, tc.fix)
		if got.Syntax != grade.SyntaxOK || got.Scanner != tc.want || got.Detail != "scanners: gosec" {
			t.Errorf("fix check %+v, want syntax ok, scanner %s", got, tc.want)
		}
	}
	entries, err := os.ReadDir(c.goCache)
	if err != nil || len(entries) < 16 {
		t.Errorf("the shared Go build cache %s holds %d entries (%v): the scans did not use it", c.goCache, len(entries), err)
	}
}
