package appsec

func accessGenerators() []Generator {
	return []Generator{
		{
			Archetype: "path-traversal", Language: "csharp", Framework: "aspnet-core",
			Levels:        []Difficulty{Beginner, Advanced},
			FilePath:      "Controllers/{{.EntityPascal}}ExportsController.cs",
			Explanation:   "Path.Combine keeps ../ segments and returns the second argument alone when it is rooted, so the name query parameter can point PhysicalFile at any file the process can read.",
			Exploit:       "GET {{.Endpoint}}/exports?name=../../../etc/passwd (or name=/app/appsettings.json) downloads files outside the exports directory, including configuration secrets.",
			Fix:           "Resolve the combined path with Path.GetFullPath and serve it only when it stays under the exports root.",
			Remediation:   []string{"Canonicalise the path and check it is inside the allowed root.", "Prefer opaque export ids mapped to file names on the server."},
			Preconditions: []string{"Network access to the exports endpoint."},
		},
		{
			Archetype: "broken-object-level-authorization", Language: "ruby", Framework: "rails",
			Levels:        []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath:      "app/controllers/{{.Entities}}_controller.rb",
			Explanation:   "show and update look the {{.Entity}} up by the id in the URL alone; any signed-in user can read or change another user's {{.Entities}} by changing the id.",
			Exploit:       "A signed-in attacker requests GET /{{.Entities}}/1, /{{.Entities}}/2, ... and PATCHes them, reading and modifying every customer's records.",
			Fix:           "Scope the lookup to the current user's association (current_user.{{.Entities}}.find) so foreign ids raise RecordNotFound.",
			Remediation:   []string{"Scope every record lookup to the authenticated principal.", "Add request specs that access another user's record and expect 404.", "Consider a policy layer (Pundit) for shared records."},
			Preconditions: []string{"Any valid user account.", "Sequential or guessable ids (or ids leaked elsewhere)."},
		},
		{
			Archetype: "server-side-request-forgery", Language: "go", Framework: "net-http",
			Levels:        []Difficulty{Intermediate, Expert},
			FilePath:      "internal/{{.Entities}}/preview.go",
			Explanation:   "The handler fetches whatever URL the {{.Param}}_url parameter names from inside the network and returns the body, so internal services and cloud metadata become reachable through it.",
			Exploit:       "GET ?{{.Param}}_url=http://169.254.169.254/latest/meta-data/iam/security-credentials/ returns the instance's cloud credentials.",
			Fix:           "Accept only https URLs whose host is on an allow-list, and do not follow redirects that could leave it.",
			Remediation:   []string{"Allow-list destination hosts and schemes.", "Disable redirects or re-check every hop.", "Block link-local and private ranges at the egress proxy."},
			Preconditions: []string{"Network access to the preview endpoint.", "Internal services or a metadata endpoint reachable from the server."},
		},
	}
}
