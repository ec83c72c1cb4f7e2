package osv

import "strings"

// crashCWE maps the sanitizer crash types OSS-Fuzz records name (the first words of "Crash
// type:") to the CWE that describes them. A READ or WRITE after an overflow type chooses
// between out-of-bounds read and write; types that name no weakness (a SEGV on an unknown
// address, a timeout, an uncaught exception) are left out, so their cases carry no CWE.
var crashCWE = map[string]string{
	"heap-use-after-free":        "CWE-416",
	"heap-double-free":           "CWE-415",
	"invalid-free":               "CWE-763",
	"bad-free":                   "CWE-763",
	"use-of-uninitialized-value": "CWE-457",
	"null-dereference":           "CWE-476",
	"index-out-of-bounds":        "CWE-129",
	"bad-cast":                   "CWE-843",
	"stack-overflow":             "CWE-674",
	"integer-overflow":           "CWE-190",
	"unsigned-integer-overflow":  "CWE-190",
	"signed-integer-overflow":    "CWE-190",
	"memory-leak":                "CWE-401",
	"direct-leak":                "CWE-401",
	"negative-size-param":        "CWE-131",
	"memcpy-param-overlap":       "CWE-475",
	"divide-by-zero":             "CWE-369",
	"float-divide-by-zero":       "CWE-369",
}

// overflows are the crash types whose READ or WRITE says which CWE applies.
var overflows = map[string]bool{
	"heap-buffer-overflow": true, "stack-buffer-overflow": true, "global-buffer-overflow": true,
	"dynamic-stack-buffer-overflow": true, "container-overflow": true, "stack-buffer-underflow": true,
	"heap-buffer-underflow": true, "intra-object-overflow": true,
}

// CWEOfCrash is the CWE of an OSS-Fuzz crash type ("Heap-buffer-overflow READ 4" is CWE-125,
// out-of-bounds read), or "" when the type names no weakness.
func CWEOfCrash(crashType string) string {
	f := strings.Fields(strings.ToLower(crashType))
	if len(f) == 0 {
		return ""
	}
	if overflows[f[0]] {
		switch {
		case len(f) > 1 && f[1] == "read":
			return "CWE-125"
		case len(f) > 1 && f[1] == "write":
			return "CWE-787"
		}
		return "CWE-119"
	}
	return crashCWE[f[0]]
}
