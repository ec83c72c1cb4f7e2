package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/vulnbench/vulnbench/internal/engine"
	"github.com/vulnbench/vulnbench/internal/verdict"
	"golang.org/x/term"
)

// progress renders engine events on stderr: a bar on a terminal, a plain line every few seconds
// otherwise. The first few error reasons are shown as they happen.
type progress struct {
	w        io.Writer
	bar      *progressbar.ProgressBar
	last     time.Time
	every    time.Duration
	shown    int
	lastDone int
}

const maxShownErrors = 5

func newProgress(w io.Writer, total int) *progress {
	p := &progress{w: w, every: 5 * time.Second, last: time.Now()}
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) { // a file, maybe behind the scrubber
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetDescription("judging"), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
	}
	return p
}

func (p *progress) event(ev engine.Event) {
	if ev.Last != nil && ev.Last.Status == verdict.Error && p.shown < maxShownErrors {
		p.shown++
		p.printf("error: case %s (repeat %d): %s\n", ev.Last.CaseID, ev.Last.Repeat, ev.Last.Reason)
		if p.shown == maxShownErrors {
			p.printf("(further errors are counted, not shown)\n")
		}
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("judging (%d errors)", ev.Err))
		_ = p.bar.Add(ev.Done - p.lastDone)
		p.lastDone = ev.Done
		return
	}
	if time.Since(p.last) >= p.every {
		p.last = time.Now()
		eta := ""
		if ev.Done > 0 && ev.Total > ev.Done {
			left := time.Duration(float64(ev.Elapsed) / float64(ev.Done) * float64(ev.Total-ev.Done))
			eta = fmt.Sprintf(", ETA %s", left.Round(time.Second))
		}
		fmt.Fprintf(p.w, "progress: %d/%d done, %d errors, %s elapsed%s\n", ev.Done, ev.Total, ev.Err, ev.Elapsed.Round(time.Second), eta)
	}
}

func (p *progress) printf(format string, args ...any) {
	if p.bar != nil {
		_ = p.bar.Clear()
	}
	fmt.Fprintf(p.w, format, args...)
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
