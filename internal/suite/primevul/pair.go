package primevul

import "fmt"

// pairRows pairs the rows of a paired file by (project, commit_id), sets each paired row's twin,
// fills rep.Unpaired and the comparison with consecutive-line pairing, and returns the rows to
// write (the ones not dropped), in file order.
func pairRows(rows []*row, rep *Report) []*row {
	type group struct {
		rows    []*row
		dropped int // line of the first row of this commit dropped for a repeated idx
	}
	groups := map[string]*group{}
	var order []*group
	kept := make([]*row, 0, len(rows))
	for _, rw := range rows {
		key := rw.project + "\x00" + rw.commit
		g := groups[key]
		if g == nil {
			g = &group{}
			groups[key] = g
			order = append(order, g)
		}
		if rw.dropped {
			if g.dropped == 0 {
				g.dropped = rw.line
			}
			continue
		}
		g.rows = append(g.rows, rw)
		kept = append(kept, rw)
	}
	for _, g := range order {
		pairGroup(g.rows)
		if g.dropped == 0 {
			continue
		}
		for _, rw := range g.rows {
			if rw.twin == nil {
				rw.why += fmt.Sprintf("; line %d of this commit was dropped for repeating an idx", g.dropped)
			}
		}
	}
	for _, rw := range kept {
		if rw.twin == nil {
			rep.Unpaired = append(rep.Unpaired, fmt.Sprintf("%s (line %d): %s", rw.id(), rw.line, rw.why))
		}
	}
	compareConsecutive(kept, rep)
	return kept
}

// pairGroup pairs the rows of one commit: one vul and one ben row make a pair; with more, each vul
// row is matched to a ben row with the same function name (in the same file first), then the rest
// in file order.
func pairGroup(rows []*row) {
	if len(rows) == 0 {
		return // every row of the commit repeated an earlier idx and was dropped
	}
	var vuls, bens []*row
	for _, rw := range rows {
		if rw.vul {
			vuls = append(vuls, rw)
		} else {
			bens = append(bens, rw)
		}
	}
	link := func(v, b *row) { v.twin, b.twin = b, v }
	if len(vuls) == 1 && len(bens) == 1 {
		link(vuls[0], bens[0])
		return
	}
	passes := []func(v, b *row) bool{
		func(v, b *row) bool { return v.name != "" && v.name == b.name && v.fileName == b.fileName },
		func(v, b *row) bool { return v.name != "" && v.name == b.name },
		func(v, b *row) bool { return true },
	}
	for _, match := range passes {
		for _, v := range vuls {
			if v.twin != nil {
				continue
			}
			for _, b := range bens {
				if b.twin == nil && match(v, b) {
					link(v, b)
					break
				}
			}
		}
	}
	rw0 := rows[0]
	for _, rw := range rows {
		if rw.twin != nil {
			continue
		}
		other := "ben"
		if !rw.vul {
			other = "vul"
		}
		if len(vuls) == 0 || len(bens) == 0 {
			rw.why = fmt.Sprintf("commit %s of %s has no %s row", rw0.commit, rw0.project, other)
		} else {
			rw.why = fmt.Sprintf("commit %s of %s has %d vul and %d ben rows: no %s row left to pair with",
				rw0.commit, rw0.project, len(vuls), len(bens), other)
		}
	}
}

// compareConsecutive checks the commit pairing against pairing consecutive rows (1+2, 3+4, ...).
func compareConsecutive(kept []*row, rep *Report) {
	label := func(rw *row) string {
		if rw.vul {
			return "vul"
		}
		return "ben"
	}
	fate := func(rw *row) string {
		if rw.twin == nil {
			return rw.id() + " has no twin"
		}
		return rw.id() + " pairs with " + rw.twin.id()
	}
	note := func(msg string) {
		rep.DisagreementCount++
		if len(rep.Disagreements) < maxDisagreements {
			rep.Disagreements = append(rep.Disagreements, msg)
		}
	}
	for i := 0; i < len(kept); i += 2 {
		a := kept[i]
		if i+1 == len(kept) {
			if a.twin != nil {
				note(fmt.Sprintf("line %d (%s %s) is the last of an odd number of rows, but grouped by commit %s",
					a.line, a.id(), label(a), fate(a)))
			}
			break
		}
		b := kept[i+1]
		if a.twin == b {
			continue
		}
		note(fmt.Sprintf("lines %d and %d (%s %s, %s %s) are consecutive, but grouped by commit %s, %s",
			a.line, b.line, a.id(), label(a), b.id(), label(b), fate(a), fate(b)))
	}
}
