// Package schema embeds the JSON Schemas of vulnbench's file formats and compiles them.
package schema

import (
	"bytes"
	_ "embed"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed case.schema.json
var caseSchema []byte

// CaseSchema returns the schema of one suite line, the bytes as shipped.
func CaseSchema() []byte { return caseSchema }

// CompileCase compiles the case schema, with format assertions (date-time) on.
func CompileCase() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(caseSchema))
	if err != nil {
		return nil, fmt.Errorf("case schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://vulnbench.dev/schema/case.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("case schema: %w", err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("case schema: %w", err)
	}
	return s, nil
}
