package predictions

import (
	"time"

	"github.com/vulnbench/vulnbench/internal/subject"
	"github.com/vulnbench/vulnbench/internal/suite"
)

// Kind is the predictions subject kind.
func Kind() subject.Kind[Config, *Subject] {
	return subject.Kind[Config, *Subject]{
		Name: "predictions", Usage: "predictions:FILE", Kinds: suite.Kinds, ArgReq: true, Version: Version,
		Summary: "replays predictions made elsewhere: vulnbench JSONL or PrimeVul's predictions.txt (matched by idx)",
		Flags: []subject.Flag{{Name: "delay", Default: time.Duration(0), Hidden: true, Resumable: true,
			Usage: "wait this long before each predictions answer (for tests)"}},
		Configure: func(arg string, v subject.Values) (Config, error) {
			return Config{File: arg, Delay: v.Duration("delay")}, nil
		},
		New: func(c Config, d subject.Deps) (*Subject, error) { return Load(c.File, c.Delay, d.Reading) },
		Can: subject.Can{Describe: true},
	}
}
