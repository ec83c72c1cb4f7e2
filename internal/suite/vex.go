package suite

import "slices"

// VEXCategories are VEX-Bench's twelve categories in the order an assessor must try them: the
// first that applies is the answer. Only "vulnerable" means exploitable.
var VEXCategories = []string{
	"false_positive",
	"code_not_present",
	"code_not_reachable",
	"requires_configuration",
	"requires_dependency",
	"requires_environment",
	"compiler_protected",
	"runtime_protected",
	"perimeter_protected",
	"mitigating_control_protected",
	"uncertain",
	"vulnerable",
}

// VEXVulnerable is the one category that means exploitable.
const VEXVulnerable = "vulnerable"

// ValidVEXCategory reports whether s is one of VEXCategories (lower case).
func ValidVEXCategory(s string) bool { return slices.Contains(VEXCategories, s) }

// VEXStatus is VEX-Bench's status of a category: "exploitable" for vulnerable, else
// "not_exploitable".
func VEXStatus(category string) string {
	if category == VEXVulnerable {
		return "exploitable"
	}
	return "not_exploitable"
}
