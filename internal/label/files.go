package label

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/vulnbench/vulnbench/internal/lineerr"
	"github.com/vulnbench/vulnbench/internal/suite"
	"github.com/vulnbench/vulnbench/internal/textnorm"
)

// LinkURL is an annotator's personal link on a viewer at base (serve's address).
func LinkURL(base, project, token string) string {
	return strings.TrimRight(base, "/") + "/label/" + textnorm.PathSegment(project) + "/login?token=" + token
}

// WriteLinks says what Init made and prints each annotator's link, to be handed to them: the
// secrets are shown this once.
func (p *Project) WriteLinks(w io.Writer, db, base string, links []Link) {
	fmt.Fprintf(w, "project %s: %d cases (%d calibration, overlap %d, %s mode) in %s\n", p.ID, len(p.Cases), p.Config.Calibration, p.Config.Overlap, p.Mode, db)
	fmt.Fprintf(w, "personal links (shown once; serve the pages with: vulnbench serve --db %s --labels):\n", db)
	for _, l := range links {
		role := ""
		if l.Adjudicator {
			role = " (adjudicator)"
		}
		fmt.Fprintf(w, "  %s%s: %s\n", l.Annotator, role, LinkURL(base, p.ID, l.Token))
	}
}

// ExportFile writes the labelled suite (Export), or with rows every label row (WriteRows), to
// path atomically, and says what it wrote.
func (p *Project) ExportFile(path string, rows, partial bool) (string, error) {
	var rep ExportReport
	err := suite.WriteFileAtomic(path, func(w io.Writer) error {
		if rows {
			return p.WriteRows(w)
		}
		var err error
		rep, err = p.Export(w, partial)
		return err
	})
	switch {
	case err != nil:
		return "", err
	case rows:
		return fmt.Sprintf("%s: %d label rows of %s", path, len(p.Rows), p.ID), nil
	case len(rep.Unresolved) > 0:
		return fmt.Sprintf("%s: %d labelled cases of %s (%d not settled, left out)", path, rep.Written, p.ID, len(rep.Unresolved)), nil
	}
	return fmt.Sprintf("%s: %d labelled cases of %s", path, rep.Written, p.ID), nil
}

// ImportFile is Import of the rows in file path.
func (p *Project) ImportFile(ctx context.Context, st Store, path string, rd *lineerr.Reading) (int, []error, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	return p.Import(ctx, st, f, path, rd)
}
