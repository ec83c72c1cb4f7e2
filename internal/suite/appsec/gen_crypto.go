package appsec

func cryptoGenerators() []Generator {
	return []Generator{
		{
			Archetype: "insecure-randomness", Language: "c", Framework: "libc",
			Levels:        []Difficulty{Intermediate, Expert},
			FilePath:      "src/{{.Entity}}_reset.c",
			Explanation:   "Reset tokens come from rand() seeded with the current second; anyone who knows roughly when a reset was requested can reproduce the generator state and the token.",
			Exploit:       "The attacker requests a reset for the victim's {{.Entity}} account, then seeds rand() with each second around the request time and tries the resulting tokens.",
			Fix:           "Draw the token from the kernel CSPRNG (getrandom) and encode it, instead of rand()/srand(time).",
			Remediation:   []string{"Use getrandom(2) or a vetted library for security tokens.", "Expire reset tokens quickly and allow one use.", "Rate-limit token submissions."},
			Preconditions: []string{"The attacker can trigger a reset for the victim's account.", "The reset time is known to within seconds."},
		},
		{
			Archetype: "improper-certificate-validation", Language: "bash", Framework: "posix-shell",
			Levels:        []Difficulty{Beginner, RealWorldEnterprise},
			FilePath:      "scripts/export_{{.Entities}}.sh",
			Explanation:   "curl --insecure skips certificate validation, so anyone on the network path can impersonate {{.Host}} and receive the bearer token the script sends.",
			Exploit:       "An attacker with a man-in-the-middle position (ARP spoofing, a rogue Wi-Fi or DNS answer) presents a self-signed certificate, captures the Authorization header and feeds forged {{.Entities}} to the warehouse.",
			Fix:           "Remove --insecure and trust the internal CA explicitly with --cacert, restricting the protocol to https and TLS 1.2+.",
			Remediation:   []string{"Never disable certificate validation; install the internal CA instead.", "Pin the protocol with --proto '=https'.", "Rotate the API token that was exposed."},
			Preconditions: []string{"A network position between the export host and {{.Host}}."},
		},
	}
}
