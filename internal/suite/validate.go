package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validate checks every line of a suite against the case schema, then the suite-wide rules
// (unique ids, pairs), and returns every problem found, sorted by line, and the number of cases
// read. A non-nil error means the input could not be read at all.
func Validate(r io.Reader, file string, sch *jsonschema.Schema) (cases int, problems []error, err error) {
	lr := NewLineReader(r, file)
	ck := NewChecker(file)
	for {
		b, line, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if le := (*LineError)(nil); errors.As(err, &le) && !errors.Is(err, ErrRead) {
				problems = append(problems, err)
				continue
			}
			return cases, problems, err
		}
		cases++
		if !json.Valid(b) {
			err := json.Unmarshal(b, new(any))
			problems = append(problems, &LineError{File: file, Line: line, Err: describeJSONError(b, err)})
			continue
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			problems = append(problems, &LineError{File: file, Line: line, Err: describeJSONError(b, err)})
			continue
		}
		if err := sch.Validate(doc); err != nil {
			for _, msg := range schemaMessages(err) {
				problems = append(problems, &LineError{File: file, Line: line, Err: errors.New(msg)})
			}
			continue
		}
		c, err := DecodeCase(b)
		if err == nil {
			err = c.Check()
		}
		if err != nil {
			problems = append(problems, &LineError{File: file, Line: line, Err: err})
			continue
		}
		problems = append(problems, ck.Add(c, line)...)
	}
	problems = append(problems, ck.Finish()...)
	sortByLine(problems)
	return cases, problems, nil
}

// schemaMessages flattens a schema validation error into one message per failing leaf, each
// naming the JSON location.
func schemaMessages(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{err.Error()}
	}
	printer := message.NewPrinter(language.English)
	var out []string
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			msg := fmt.Sprintf("schema: at %s: %s", loc, e.ErrorKind.LocalizedString(printer))
			if !seen[msg] {
				seen[msg] = true
				out = append(out, msg)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}
