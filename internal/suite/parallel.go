package suite

import (
	"errors"
	"io"
	"runtime"
	"sync"
)

// lineBatch is a run of consecutive lines decoded by one worker.
type lineBatch[T any] struct {
	buf   []byte // the lines' bytes, back to back
	ends  []int  // end offset of each line in buf
	lines []int  // each line's number
	errs  []error
	out   []T
	done  chan struct{}
}

const batchLines = 256

// DecodeLines reads lr to the end and decodes its lines on several goroutines (workers <= 0
// means one per CPU), then calls emit with each result in file order, from the calling
// goroutine. A problem with a line itself (an over-long line) reaches emit as err with a zero
// T. DecodeLines returns the reader's own failure or emit's error, which stops it.
func DecodeLines[T any](lr *LineReader, workers int, decode func(b []byte, line int) T, emit func(v T, line int, err error) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make(chan *lineBatch[T], workers)
	ordered := make(chan *lineBatch[T], 2*workers)
	quit := make(chan struct{})
	var readErr error

	go func() { // reader: fills batches in order
		defer close(work)
		defer close(ordered)
		size := 0 // the last batch's bytes: the next one likely needs as many
		for {
			b := &lineBatch[T]{buf: make([]byte, 0, size+size/4), ends: make([]int, 0, batchLines),
				lines: make([]int, 0, batchLines), errs: make([]error, 0, batchLines), done: make(chan struct{})}
			for len(b.lines) < batchLines {
				line, n, err := lr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					var le *LineError
					if errors.As(err, &le) && !errors.Is(err, ErrRead) {
						b.lines = append(b.lines, n)
						b.ends = append(b.ends, len(b.buf))
						b.errs = append(b.errs, err)
						continue
					}
					readErr = err
					break
				}
				b.buf = append(b.buf, line...)
				b.lines = append(b.lines, n)
				b.ends = append(b.ends, len(b.buf))
				b.errs = append(b.errs, nil)
			}
			if len(b.lines) == 0 {
				return
			}
			size = len(b.buf)
			select {
			case ordered <- b:
			case <-quit:
				return
			}
			select {
			case work <- b:
			case <-quit:
				return
			}
			if len(b.lines) < batchLines {
				return
			}
		}
	}()

	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range work {
				b.out = make([]T, len(b.lines))
				start := 0
				for j, end := range b.ends {
					if b.errs[j] == nil {
						b.out[j] = decode(b.buf[start:end], b.lines[j])
					}
					start = end
				}
				close(b.done)
			}
		}()
	}

	var emitErr error
	for b := range ordered {
		<-b.done
		for j := range b.lines {
			if emitErr == nil {
				emitErr = emit(b.out[j], b.lines[j], b.errs[j])
			}
		}
		if emitErr != nil {
			close(quit)
			for range ordered { // let the reader finish; workers drain work
			}
			break
		}
	}
	wg.Wait()
	if emitErr != nil {
		return emitErr
	}
	return readErr
}
