package appsec

import "strings"

// The identifier formats of SPEC section 3, checked by hand rather than with package-level
// regular expressions; a CWE id's is taxonomy.IsCWE.

// allDigits reports whether s is one or more ASCII digits.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// IsOWASP2021 reports whether s matches ^A\d{2}:2021$.
func IsOWASP2021(s string) bool {
	num, ok := strings.CutSuffix(s, ":2021")
	return ok && len(num) == 3 && num[0] == 'A' && allDigits(num[1:])
}

// IsOWASPAPI2023 reports whether s matches ^API([1-9]|10):2023$.
func IsOWASPAPI2023(s string) bool {
	num, ok := strings.CutSuffix(s, ":2023")
	if !ok {
		return false
	}
	num, ok = strings.CutPrefix(num, "API")
	return ok && (len(num) == 1 && num >= "1" && num <= "9" || num == "10")
}

// IsOWASPLLM2025 reports whether s matches ^LLM(0[1-9]|10):2025$.
func IsOWASPLLM2025(s string) bool {
	num, ok := strings.CutSuffix(s, ":2025")
	if !ok {
		return false
	}
	num, ok = strings.CutPrefix(num, "LLM")
	return ok && len(num) == 2 && allDigits(num) && num >= "01" && num <= "10"
}

// IsBenchmarkID reports whether s matches ^ASB-\d{6}$.
func IsBenchmarkID(s string) bool {
	num, ok := strings.CutPrefix(s, "ASB-")
	return ok && len(num) == 6 && allDigits(num)
}

// isKebab reports whether s is lower-case kebab-case: ^[a-z0-9]+(-[a-z0-9]+)*$.
func isKebab(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
