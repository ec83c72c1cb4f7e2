// Package appsec builds and checks AppSecBench (SPEC section 3, seed 002): an original, generated,
// multi-skill application-security benchmark. It holds the catalog of 34 vulnerability archetypes,
// the record format with its validator, the rubric's automatic parts, the generators (logic and
// metadata in gen_*.go, snippets as embedded text/template files under templates/, checked by
// CheckTemplates) and the deterministic Build. The CWE taxonomy is in internal/taxonomy and CVSS
// scoring in internal/cvss (both below every package that uses them).
//
// Nothing here prints or touches the network; the only package-level state is embedded data.
package appsec
