package primevul

import (
	"testing"
)

// A paired file whose name lacks "paired" imports unpaired, and says it looks paired when every
// (project, commit) has one vul and one ben row (issue 25, finding 9).
func TestLooksPaired(t *testing.T) {
	paired := line() + "\n" + line("idx", "2", "target", "0") + "\n" +
		line("idx", "3", "commit_id", `"d"`) + "\n" + line("idx", "4", "commit_id", `"d"`, "target", "0") + "\n"
	for _, tt := range []struct {
		name, data string
		opt        Options
		want       bool
	}{
		{"a paired file renamed", paired, Options{}, true},
		{"asked for no pairs", paired, Options{Paired: "no"}, false},
		{"a commit with two vul rows", paired + line("idx", "5", "commit_id", `"d"`) + "\n", Options{}, false},
		{"one vul row per commit", line() + "\n" + line("idx", "2", "commit_id", `"d"`) + "\n", Options{}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, rep, errs, _ := run(t, []byte(tt.data), "primevul_test.jsonl", tt.opt)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			if rep.LooksPaired != tt.want || rep.Pairs != 0 {
				t.Errorf("looks paired %v, pairs %d; want %v, 0", rep.LooksPaired, rep.Pairs, tt.want)
			}
		})
	}
}
