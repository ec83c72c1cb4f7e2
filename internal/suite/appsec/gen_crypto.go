package appsec

func cryptoGenerators() []Generator {
	return []Generator{
		{
			Archetype: "insecure-randomness", Language: "c", Framework: "libc",
			Levels:   []Difficulty{Intermediate, Expert},
			FilePath: "src/{{.Entity}}_reset.c",
			Vulnerable: `#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#define TOKEN_LEN 32

/* Issues the one-time token mailed to reset a {{.Entity}} account password. */
int {{.Entity}}_{{.Verb}}_reset_token(char *out, size_t out_len)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";

    if (out_len < TOKEN_LEN + 1) {
        return -1;
    }
    srand((unsigned)time(NULL));⟪v⟫
    for (size_t i = 0; i < TOKEN_LEN; i++) {
        out[i] = alphabet[rand() % (sizeof(alphabet) - 1)];⟪v⟫
    }
    out[TOKEN_LEN] = '\0';
    return 0;
}
`,
			Secure: `#include <stddef.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/types.h>

#define TOKEN_BYTES 16

/* Issues the one-time token mailed to reset a {{.Entity}} account password. */
int {{.Entity}}_{{.Verb}}_reset_token(char *out, size_t out_len)
{
    unsigned char raw[TOKEN_BYTES];
    size_t got = 0;

    if (out_len < 2 * TOKEN_BYTES + 1) {
        return -1;
    }
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0) {
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    }
    return 0;
}
`,
			Explanation:   "Reset tokens come from rand() seeded with the current second; anyone who knows roughly when a reset was requested can reproduce the generator state and the token.",
			Exploit:       "The attacker requests a reset for the victim's {{.Entity}} account, then seeds rand() with each second around the request time and tries the resulting tokens.",
			Fix:           "Draw the token from the kernel CSPRNG (getrandom) and encode it, instead of rand()/srand(time).",
			Remediation:   []string{"Use getrandom(2) or a vetted library for security tokens.", "Expire reset tokens quickly and allow one use.", "Rate-limit token submissions."},
			Preconditions: []string{"The attacker can trigger a reset for the victim's account.", "The reset time is known to within seconds."},
		},
		{
			Archetype: "improper-certificate-validation", Language: "bash", Framework: "posix-shell",
			Levels:   []Difficulty{Beginner, RealWorldEnterprise},
			FilePath: "scripts/export_{{.Entities}}.sh",
			Vulnerable: `#!/usr/bin/env bash
# Nightly export of {{.Entities}} to the reporting warehouse.
set -euo pipefail

api_base="https://{{.Host}}{{.Endpoint}}"
token_file="/run/secrets/{{.Entity}}_api_token"
out_dir="/var/lib/reporting/{{.Entities}}"

{{.FuncSnake}}() {
  mkdir -p "$out_dir"
  curl --silent --show-error --fail --insecure \⟪v⟫
    -H "Authorization: Bearer $(cat "$token_file")" \
    -o "$out_dir/$1.json" \
    "$api_base?{{.Param}}=$1"
}

for {{.Param}} in open closed archived; do
  {{.FuncSnake}} "${{.Param}}"
done
`,
			Secure: `#!/usr/bin/env bash
# Nightly export of {{.Entities}} to the reporting warehouse.
set -euo pipefail

api_base="https://{{.Host}}{{.Endpoint}}"
token_file="/run/secrets/{{.Entity}}_api_token"
out_dir="/var/lib/reporting/{{.Entities}}"
ca_bundle="/etc/ssl/certs/internal-ca.pem"

{{.FuncSnake}}() {
  mkdir -p "$out_dir"
  curl --silent --show-error --fail --proto '=https' --tlsv1.2 --cacert "$ca_bundle" \
    -H "Authorization: Bearer $(cat "$token_file")" \
    -o "$out_dir/$1.json" \
    "$api_base?{{.Param}}=$1"
}

for {{.Param}} in open closed archived; do
  {{.FuncSnake}} "${{.Param}}"
done
`,
			Explanation:   "curl --insecure skips certificate validation, so anyone on the network path can impersonate {{.Host}} and receive the bearer token the script sends.",
			Exploit:       "An attacker with a man-in-the-middle position (ARP spoofing, a rogue Wi-Fi or DNS answer) presents a self-signed certificate, captures the Authorization header and feeds forged {{.Entities}} to the warehouse.",
			Fix:           "Remove --insecure and trust the internal CA explicitly with --cacert, restricting the protocol to https and TLS 1.2+.",
			Remediation:   []string{"Never disable certificate validation; install the internal CA instead.", "Pin the protocol with --proto '=https'.", "Rotate the API token that was exposed."},
			Preconditions: []string{"A network position between the export host and {{.Host}}."},
		},
	}
}
