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
	"github.com/vulnbench/vulnbench/internal/lineerr"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validate checks every line of a suite against the case schema, then the suite-wide rules
// (unique ids, pairs), and returns every problem found, sorted by line, and the number of cases
// read. A non-nil error means the input could not be read at all. rd is how it is read (nil:
// strictly, nothing noted).
func Validate(r io.Reader, file string, rd *lineerr.Reading, sch *jsonschema.Schema) (cases int, problems []error, err error) {
	lr := NewLineReader(r, file)
	lr.Reading = rd
	ck := NewChecker(file)
	type decoded struct {
		c    *Case
		errs []error // without file and line
	}
	err = DecodeLines(lr, 0, func(b []byte, _ int) decoded {
		if !json.Valid(b) {
			return decoded{errs: []error{DescribeJSONError(b, json.Unmarshal(b, new(any)), "case")}}
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return decoded{errs: []error{DescribeJSONError(b, err, "case")}}
		}
		if err := sch.Validate(doc); err != nil {
			var errs []error
			for _, msg := range schemaMessages(err) {
				errs = append(errs, errors.New(msg))
			}
			return decoded{errs: errs}
		}
		c, err := DecodeCase(b)
		if err == nil {
			err = c.Check()
		}
		if err != nil {
			return decoded{errs: []error{err}}
		}
		return decoded{c: c}
	}, func(d decoded, line int, err error) error {
		if err != nil {
			problems = append(problems, err)
			return nil
		}
		cases++
		for _, e := range d.errs {
			problems = append(problems, &LineError{File: file, Line: line, Err: e})
		}
		if d.c != nil {
			problems = append(problems, ck.Add(d.c, line)...)
		}
		return nil
	})
	if err != nil {
		return cases, problems, err
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
