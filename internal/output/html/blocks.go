package html

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/vulnbench/vulnbench/internal/output"
)

var blocksPage = template.Must(template.New("blocks").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>vulnbench {{.Kind}}</title><style>{{.Style}}</style></head><body>
<h1>vulnbench {{.Kind}}</h1>
{{range .Blocks}}<section>{{if .Title}}<h2>{{.Title}}</h2>{{end}}
{{with .Table}}<table><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>{{if .Note}}<p class="note">{{.Note}}</p>{{end}}{{end}}
{{range .Lines}}<p class="note">{{.}}</p>
{{end}}</section>
{{end}}</body></html>
`))

// writeBlocks writes a document's blocks as one self-contained page of tables.
func writeBlocks(w io.Writer, d output.Document) error {
	bs, err := output.Blocks(d)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := blocksPage.Execute(&b, struct {
		Kind   string
		Style  template.CSS
		Blocks []output.Block
	}{d.Kind(), Style(), bs}); err != nil {
		return fmt.Errorf("html %s: %w", d.Kind(), err)
	}
	_, err = w.Write(b.Bytes())
	return err
}
