// Package appsec builds and checks AppSecBench (SPEC section 3, seed 002): an original, generated,
// multi-skill application-security benchmark. It holds the catalog of 34 vulnerability archetypes,
// the CWE hierarchy used for partial credit, CVSS 3.1 scoring, the record format with its
// validator, the rubric's automatic parts, and the template generators with the deterministic
// Build.
//
// Nothing here prints or touches the network; the only package-level state is embedded data.
package appsec
