package osv

import "testing"

func TestTagVersion(t *testing.T) {
	for tag, want := range map[string]string{
		"v1.2.3": "1.2.3", "1.2.3": "1.2.3", "jackson-databind-2.13.4.1": "2.13.4.1", "netty-4.1.68.Final": "4.1.68.Final",
		"libxml2-2.9.1": "2.9.1", "release/3.0": "3.0", "2.3.x": "", "1.*": "", "v20": "", "nightly": "", "r03": "",
	} {
		if got := tagVersion(tag); got != want {
			t.Errorf("tagVersion(%q) = %q, want %q", tag, got, want)
		}
	}
}
