package appsec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"text/template"

	"github.com/vulnbench/vulnbench/internal/cvss"
)

// VulnMarker ends a line of a vulnerable template that holds the weakness. Rendering removes it
// and records the line in vulnerable_lines, so line numbers are never counted by hand.
const VulnMarker = "⟪v⟫"

// Generator emits records of one (archetype × language × framework). Every text field is a
// text/template over Vars; Vulnerable marks its weak lines with VulnMarker. Generators() fills
// Vulnerable and Secure from the generator's template files (TemplateFile).
type Generator struct {
	Archetype     string
	Language      string
	Framework     string
	Levels        []Difficulty // one record per level
	FilePath      string
	Vulnerable    string // the vul template
	Secure        string // the fix template
	Explanation   string
	Exploit       string
	Fix           string
	Remediation   []string
	Preconditions []string
}

// Name identifies the generator: archetype/language/framework.
func (g Generator) Name() string { return g.Archetype + "/" + g.Language + "/" + g.Framework }

// Vars are the identifiers drawn for one record from the variation pools.
type Vars struct {
	Entity string // singular, lower case: "invoice"
	Verb   string // "find"
	Param  string // a request parameter: "status"
	Field  string // a column or attribute: "title"
	Prefix string // an API prefix: "/api/v1"
	Host   string // a host name: "billing.example.com"
}

// Entities is the plural: "invoices".
func (v Vars) Entities() string { return v.Entity + "s" }

// EntityPascal is "Invoice".
func (v Vars) EntityPascal() string { return pascal(v.Entity) }

// EntitiesPascal is "Invoices".
func (v Vars) EntitiesPascal() string { return pascal(v.Entities()) }

// ParamPascal is "Status".
func (v Vars) ParamPascal() string { return pascal(v.Param) }

// Func is camelCase: "findInvoices".
func (v Vars) Func() string { return v.Verb + v.EntitiesPascal() }

// FuncPascal is "FindInvoices".
func (v Vars) FuncPascal() string { return pascal(v.Func()) }

// FuncSnake is "find_invoices".
func (v Vars) FuncSnake() string { return v.Verb + "_" + v.Entities() }

// Table is "invoices".
func (v Vars) Table() string { return v.Entities() }

// Endpoint is "/api/v1/invoices".
func (v Vars) Endpoint() string { return v.Prefix + "/" + v.Entities() }

func pascal(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// variationPools returns the pools identifiers are drawn from. Param and Field pools are disjoint
// so a snippet never declares the same name twice.
func variationPools() (entities, verbs, params, fields, prefixes, hosts []string) {
	entities = []string{"invoice", "order", "ticket", "report", "customer", "shipment", "payment",
		"document", "project", "account", "contract", "device", "booking", "coupon", "employee",
		"asset", "lead", "vendor", "subscription", "warehouse"}
	verbs = []string{"find", "load", "fetch", "lookup", "search", "get", "list", "query"}
	params = []string{"status", "region", "owner", "category", "channel", "tier", "label", "segment"}
	fields = []string{"name", "title", "email", "reference", "note", "code", "summary"}
	prefixes = []string{"/api", "/api/v1", "/api/v2", "/internal/api", "/v1", "/portal/api"}
	hosts = []string{"billing.example.com", "erp.example.net", "partner.example.org",
		"reports.example.com", "ops.example.net", "crm.example.org"}
	return
}

func drawVars(rng *rand.Rand) Vars {
	entities, verbs, params, fields, prefixes, hosts := variationPools()
	pick := func(p []string) string { return p[rng.IntN(len(p))] }
	return Vars{Entity: pick(entities), Verb: pick(verbs), Param: pick(params), Field: pick(fields),
		Prefix: pick(prefixes), Host: pick(hosts)}
}

// rendered is one generator's output for one Vars.
type rendered struct {
	filePath, vulnerable, secure, explanation, exploit, fix string
	lines                                                   []int
	remediation, preconditions                              []string
}

func (g Generator) render(v Vars) (rendered, error) {
	var out rendered
	var err error
	exec := func(name, text string) string {
		if err != nil {
			return ""
		}
		var s string
		if s, err = execute(g.Name()+":"+name, text, v); err != nil {
			err = fmt.Errorf("generator %s: %w", g.Name(), err)
		}
		return s
	}
	out.filePath = exec("file", g.FilePath)
	vul := exec("vulnerable", g.Vulnerable)
	out.secure = exec("secure", g.Secure)
	out.explanation = exec("explanation", g.Explanation)
	out.exploit = exec("exploit", g.Exploit)
	out.fix = exec("fix", g.Fix)
	for i, s := range g.Remediation {
		out.remediation = append(out.remediation, exec(fmt.Sprint("remediation", i), s))
	}
	for i, s := range g.Preconditions {
		out.preconditions = append(out.preconditions, exec(fmt.Sprint("precondition", i), s))
	}
	if err != nil {
		return rendered{}, err
	}
	if strings.Contains(out.secure, VulnMarker) {
		return rendered{}, fmt.Errorf("generator %s: secure code has a vulnerability marker", g.Name())
	}
	out.vulnerable, out.lines = stripMarkers(vul)
	if len(out.lines) == 0 {
		return rendered{}, fmt.Errorf("generator %s: vulnerable code marks no line", g.Name())
	}
	return out, nil
}

// execute renders one text/template over v; a missing field is an error.
func execute(name, text string, v Vars) (string, error) {
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

// stripMarkers removes VulnMarker from code and returns the 1-based lines that held it.
func stripMarkers(code string) (string, []int) {
	lines := strings.Split(code, "\n")
	var marked []int
	for i, l := range lines {
		if before, ok := strings.CutSuffix(strings.TrimRight(l, " \t"), VulnMarker); ok {
			lines[i] = strings.TrimRight(before, " \t")
			marked = append(marked, i+1)
		}
	}
	return strings.Join(lines, "\n"), marked
}

// BuildOptions are Build's knobs beyond the seed.
//
// The count policy (SPEC section 3: "sample a bounded number per (archetype × difficulty)"): every
// (archetype × difficulty) cell that some generator covers gets the same number of records,
// PerCell, the cell's generators taking turns in name order, each record with its own draw of
// identifiers. With PerCell 0 the count is automatic: the smallest per-cell count whose total
// reaches MinRecords, but never more than MaxPerCell, so a small generator set yields fewer
// records rather than many near-copies of one snippet. A cell falls short only when its
// generators run out of distinct identifier variations (see BuildWith).
type BuildOptions struct {
	Seed       int
	Generators []Generator // nil: Generators()
	PerCell    int         // records per (archetype × difficulty); 0: automatic
	MinRecords int         // the automatic count's target; 0: DefaultMinRecords
	MaxPerCell int         // the automatic count's cap; 0: DefaultMaxPerCell
}

// The count policy's defaults: seed 002's v1.0.0 has 406 records; with the full generator set
// (34 archetypes, two or more levels each) the target is met well below the cap.
const (
	DefaultMinRecords = 406
	DefaultMaxPerCell = 8
)

// splitStream is the PCG stream of the split shuffle; record streams are the record indexes,
// which stay far below it.
const splitStream = 1 << 62

// maxDraws bounds the redraws of a record's identifiers when its normalised vulnerable code
// collides with an earlier record's.
const maxDraws = 200

// Build generates the records of every generator under the default count policy (see
// BuildOptions), with ids ASB-000001... Identifiers come from a PCG seeded with (seed, record
// index), redrawn on a collision of normalised vulnerable code; splits come from a seeded shuffle
// (70% train, 15% validation, the rest test). The output is a pure function of the seed and the
// generators.
func Build(seed int) ([]Record, error) { return BuildWith(BuildOptions{Seed: seed}) }

// cell is an (archetype × difficulty), the generators that cover it (in name order) and the
// number of records it gets.
type cell struct {
	archetype string
	level     Difficulty
	gens      []Generator
	n         int
}

// BuildWith is Build with explicit options. Records come in cell order (archetype, then
// difficulty, easiest first); within a cell the generators take turns. A generator whose
// identifier draws can no longer give new vulnerable code (its variations are used up) drops out
// and the cell's other generators fill its turns; a cell none can fill stays short, so the count
// can fall below the policy's but every record stays unique.
func BuildWith(opt BuildOptions) ([]Record, error) {
	cat, err := LoadCatalog()
	if err != nil {
		return nil, err
	}
	gens := opt.Generators
	if gens == nil {
		if gens, err = Generators(); err != nil {
			return nil, err
		}
	}
	cells, err := plan(cat, gens, opt)
	if err != nil {
		return nil, err
	}
	rubric := DefaultRubric()
	seen := map[string]bool{}
	exhausted := map[string]bool{}
	var recs []Record
	for _, c := range cells {
		arch := cat.Archetype(c.archetype)
		turn := 0
		for made := 0; made < c.n; {
			active := slices.DeleteFunc(slices.Clone(c.gens), func(g Generator) bool { return exhausted[g.Name()] })
			if len(active) == 0 {
				break
			}
			g := active[turn%len(active)]
			idx := len(recs)
			out, ok, err := drawUnique(g, rand.New(rand.NewPCG(uint64(opt.Seed), uint64(idx))), seen)
			if err != nil {
				return nil, err
			}
			if !ok {
				exhausted[g.Name()] = true
				continue
			}
			seen[NormaliseCode(out.vulnerable)] = true
			rec, err := newRecord(cat, arch, g, c.level, out, rubric, opt.Seed, idx)
			if err != nil {
				return nil, err
			}
			recs = append(recs, rec)
			made++
			turn++
		}
	}
	assignSplits(recs, opt.Seed)
	return recs, nil
}

// drawUnique renders g with identifiers drawn from rng until its normalised vulnerable code is new,
// at most maxDraws times; ok is false when every draw collided.
func drawUnique(g Generator, rng *rand.Rand, seen map[string]bool) (rendered, bool, error) {
	for range maxDraws {
		out, err := g.render(drawVars(rng))
		if err != nil {
			return rendered{}, false, err
		}
		if !seen[NormaliseCode(out.vulnerable)] {
			return out, true, nil
		}
	}
	return rendered{}, false, nil
}

// plan checks the generators against the catalog and applies the count policy: it returns the
// cells in archetype and difficulty order, each with its generators and record count.
func plan(cat *Catalog, gens []Generator, opt BuildOptions) ([]cell, error) {
	if opt.PerCell < 0 || opt.MinRecords < 0 || opt.MaxPerCell < 0 {
		return nil, fmt.Errorf("build options: negative count in %+v", opt)
	}
	gens = slices.Clone(gens)
	slices.SortStableFunc(gens, func(a, b Generator) int { return strings.Compare(a.Name(), b.Name()) })
	var cells []cell
	for i, g := range gens {
		if i > 0 && gens[i-1].Name() == g.Name() {
			return nil, fmt.Errorf("generator %s: defined twice", g.Name())
		}
		arch := cat.Archetype(g.Archetype)
		if arch == nil {
			return nil, fmt.Errorf("generator %s: unknown archetype", g.Name())
		}
		if !arch.Realistic(g.Language, g.Framework) {
			return nil, fmt.Errorf("generator %s: %s/%s is not a catalog target", g.Name(), g.Language, g.Framework)
		}
		for _, level := range g.Levels {
			if !slices.Contains(Difficulties(), level) {
				return nil, fmt.Errorf("generator %s: unknown difficulty %q", g.Name(), level)
			}
		}
		for _, level := range Difficulties() {
			if !slices.Contains(g.Levels, level) {
				continue
			}
			j := slices.IndexFunc(cells, func(c cell) bool { return c.archetype == g.Archetype && c.level == level })
			if j < 0 {
				cells = append(cells, cell{archetype: g.Archetype, level: level})
				j = len(cells) - 1
			}
			cells[j].gens = append(cells[j].gens, g)
		}
	}
	slices.SortFunc(cells, func(a, b cell) int {
		if c := strings.Compare(a.archetype, b.archetype); c != 0 {
			return c
		}
		return slices.Index(Difficulties(), a.level) - slices.Index(Difficulties(), b.level)
	})
	perCell := opt.PerCell
	if perCell == 0 {
		perCell = autoPerCell(len(cells), opt.MinRecords, opt.MaxPerCell)
	}
	for i := range cells {
		cells[i].n = perCell
	}
	return cells, nil
}

// autoPerCell is the smallest per-cell count whose total over cells reaches target (default
// DefaultMinRecords), capped at limit (default DefaultMaxPerCell) and at least 1.
func autoPerCell(cells, target, limit int) int {
	if target == 0 {
		target = DefaultMinRecords
	}
	if limit == 0 {
		limit = DefaultMaxPerCell
	}
	if cells == 0 {
		return 1
	}
	return max(1, min((target+cells-1)/cells, limit))
}

func newRecord(cat *Catalog, arch *Archetype, g Generator, level Difficulty, out rendered, rubric RubricSpec, seed, idx int) (Record, error) {
	vector, err := cvss.AdjustVector(arch.CVSS, level == RealWorldEnterprise) // the attacker needs a foothold
	if err != nil {
		return Record{}, fmt.Errorf("generator %s: %w", g.Name(), err)
	}
	score, err := cvss.Score(vector)
	if err != nil {
		return Record{}, fmt.Errorf("generator %s: %w", g.Name(), err)
	}
	fp, fn, conf := priors(level)
	tags := []string{arch.ID, arch.Category, g.Language, g.Framework, arch.CWE, arch.OWASP}
	for _, t := range []string{arch.OWASPAPI, arch.OWASPLLM} {
		if t != "" {
			tags = append(tags, t)
		}
	}
	return Record{
		BenchmarkID:         fmt.Sprintf("ASB-%06d", idx+1),
		Title:               fmt.Sprintf("%s in %s (%s/%s)", arch.Name, out.filePath, g.Language, g.Framework),
		VulnerabilityName:   arch.Name,
		Category:            arch.Category,
		Language:            g.Language,
		Framework:           g.Framework,
		Difficulty:          level,
		SourceType:          SourceTypes()[0],
		FilePath:            out.filePath,
		VulnerableCode:      out.vulnerable,
		SecureCode:          out.secure,
		VulnerableLines:     out.lines,
		ExpectedDetection:   true,
		ExpectedCWE:         arch.CWE,
		ExpectedCWEName:     arch.CWEName,
		ExpectedOWASP:       arch.OWASP,
		ExpectedOWASPAPI:    arch.OWASPAPI,
		ExpectedOWASPLLM:    arch.OWASPLLM,
		ExpectedSeverity:    cvss.Severity(score),
		ExpectedCVSS:        vector,
		ExpectedCVSSScore:   score,
		ExpectedConfidence:  conf,
		Explanation:         out.explanation,
		ExploitScenario:     out.exploit,
		AttackPreconditions: out.preconditions,
		FixDescription:      out.fix,
		RemediationSteps:    out.remediation,
		References:          cat.References(arch),
		Tags:                tags,
		FalsePositivePrior:  fp,
		FalseNegativePrior:  fn,
		EvaluationRubric:    rubric,
		Version:             Version,
		Metadata: RecordMeta{Archetype: arch.ID, Generator: g.Name(), Seed: seed, CWE: arch.CWE,
			CVSSVector: vector, CVSSScore: score},
	}, nil
}

// priors are the false-positive and false-negative priors and the expected confidence of a level:
// harder levels are likelier to be missed and to draw hedged answers.
func priors(level Difficulty) (fp, fn float64, confidence string) {
	switch level {
	case Beginner:
		return 0.05, 0.05, "high"
	case Intermediate:
		return 0.08, 0.12, "high"
	case Advanced:
		return 0.1, 0.2, "medium"
	case Expert:
		return 0.15, 0.3, "low"
	default:
		return 0.15, 0.35, "medium"
	}
}

func assignSplits(recs []Record, seed int) {
	perm := rand.New(rand.NewPCG(uint64(seed), splitStream)).Perm(len(recs))
	nTrain := len(recs) * 70 / 100
	nValid := len(recs) * 15 / 100
	for rank, i := range perm {
		switch {
		case rank < nTrain:
			recs[i].Split = "train"
		case rank < nTrain+nValid:
			recs[i].Split = "validation"
		default:
			recs[i].Split = "test"
		}
	}
}
