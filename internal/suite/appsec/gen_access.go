package appsec

func accessGenerators() []Generator {
	return []Generator{
		{
			Archetype: "path-traversal", Language: "csharp", Framework: "aspnet-core",
			Levels:   []Difficulty{Beginner, Advanced},
			FilePath: "Controllers/{{.EntityPascal}}ExportsController.cs",
			Vulnerable: `using System;
using System.IO;
using Microsoft.AspNetCore.Mvc;

namespace Example.{{.EntitiesPascal}};

[ApiController]
[Route("{{.Endpoint}}/exports")]
public class {{.EntityPascal}}ExportsController : ControllerBase
{
    private const string Root = "/srv/{{.Entities}}/exports";

    [HttpGet]
    public IActionResult {{.FuncPascal}}([FromQuery] string name)
    {
        var path = Path.Combine(Root, name);⟪v⟫
        if (!System.IO.File.Exists(path))
        {
            return NotFound();
        }
        return PhysicalFile(path, "application/octet-stream");⟪v⟫
    }
}
`,
			Secure: `using System;
using System.IO;
using Microsoft.AspNetCore.Mvc;

namespace Example.{{.EntitiesPascal}};

[ApiController]
[Route("{{.Endpoint}}/exports")]
public class {{.EntityPascal}}ExportsController : ControllerBase
{
    private const string Root = "/srv/{{.Entities}}/exports";

    [HttpGet]
    public IActionResult {{.FuncPascal}}([FromQuery] string name)
    {
        var full = Path.GetFullPath(Path.Combine(Root, name));
        if (!full.StartsWith(Root + Path.DirectorySeparatorChar, StringComparison.Ordinal)
            || !System.IO.File.Exists(full))
        {
            return NotFound();
        }
        return PhysicalFile(full, "application/octet-stream");
    }
}
`,
			Explanation:   "Path.Combine keeps ../ segments and returns the second argument alone when it is rooted, so the name query parameter can point PhysicalFile at any file the process can read.",
			Exploit:       "GET {{.Endpoint}}/exports?name=../../../etc/passwd (or name=/app/appsettings.json) downloads files outside the exports directory, including configuration secrets.",
			Fix:           "Resolve the combined path with Path.GetFullPath and serve it only when it stays under the exports root.",
			Remediation:   []string{"Canonicalise the path and check it is inside the allowed root.", "Prefer opaque export ids mapped to file names on the server."},
			Preconditions: []string{"Network access to the exports endpoint."},
		},
		{
			Archetype: "broken-object-level-authorization", Language: "ruby", Framework: "rails",
			Levels:   []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath: "app/controllers/{{.Entities}}_controller.rb",
			Vulnerable: `class {{.EntitiesPascal}}Controller < ApplicationController
  before_action :authenticate_user!

  def show
    @{{.Entity}} = {{.EntityPascal}}.find(params[:id])⟪v⟫
    render json: @{{.Entity}}.as_json(only: %i[id {{.Field}} {{.Param}} created_at])
  end

  def update
    @{{.Entity}} = {{.EntityPascal}}.find(params[:id])⟪v⟫
    if @{{.Entity}}.update({{.Entity}}_params)
      render json: @{{.Entity}}
    else
      render json: @{{.Entity}}.errors, status: :unprocessable_entity
    end
  end

  private

  def {{.Entity}}_params
    params.require(:{{.Entity}}).permit(:{{.Field}}, :{{.Param}})
  end
end
`,
			Secure: `class {{.EntitiesPascal}}Controller < ApplicationController
  before_action :authenticate_user!

  def show
    @{{.Entity}} = current_user.{{.Entities}}.find(params[:id])
    render json: @{{.Entity}}.as_json(only: %i[id {{.Field}} {{.Param}} created_at])
  end

  def update
    @{{.Entity}} = current_user.{{.Entities}}.find(params[:id])
    if @{{.Entity}}.update({{.Entity}}_params)
      render json: @{{.Entity}}
    else
      render json: @{{.Entity}}.errors, status: :unprocessable_entity
    end
  end

  private

  def {{.Entity}}_params
    params.require(:{{.Entity}}).permit(:{{.Field}}, :{{.Param}})
  end
end
`,
			Explanation:   "show and update look the {{.Entity}} up by the id in the URL alone; any signed-in user can read or change another user's {{.Entities}} by changing the id.",
			Exploit:       "A signed-in attacker requests GET /{{.Entities}}/1, /{{.Entities}}/2, ... and PATCHes them, reading and modifying every customer's records.",
			Fix:           "Scope the lookup to the current user's association (current_user.{{.Entities}}.find) so foreign ids raise RecordNotFound.",
			Remediation:   []string{"Scope every record lookup to the authenticated principal.", "Add request specs that access another user's record and expect 404.", "Consider a policy layer (Pundit) for shared records."},
			Preconditions: []string{"Any valid user account.", "Sequential or guessable ids (or ids leaked elsewhere)."},
		},
		{
			Archetype: "server-side-request-forgery", Language: "go", Framework: "net-http",
			Levels:   []Difficulty{Intermediate, Expert},
			FilePath: "internal/{{.Entities}}/preview.go",
			Vulnerable: `package {{.Entities}}

import (
	"io"
	"net/http"
)

// {{.FuncPascal}}Preview proxies the {{.Entity}} preview image from the URL the client supplies.
func {{.FuncPascal}}Preview(client *http.Client) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		target := r.URL.Query().Get("{{.Param}}_url")
		resp, err := client.Get(target)⟪v⟫
		if err != nil {
			http.Error(w, "fetch failed", http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = io.Copy(w, io.LimitReader(resp.Body, 5<<20))
	}
}
`,
			Secure: `package {{.Entities}}

import (
	"io"
	"net/http"
	"net/url"
)

// {{.FuncPascal}}Preview proxies the {{.Entity}} preview image from an allow-listed image host.
func {{.FuncPascal}}Preview(client *http.Client) http.HandlerFunc {
	allowed := map[string]bool{"images.{{.Host}}": true, "cdn.{{.Host}}": true}
	noRedirect := *client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(w http.ResponseWriter, r *http.Request) {
		target, err := url.Parse(r.URL.Query().Get("{{.Param}}_url"))
		if err != nil || target.Scheme != "https" || !allowed[target.Hostname()] {
			http.Error(w, "url not allowed", http.StatusBadRequest)
			return
		}
		resp, err := noRedirect.Get(target.String())
		if err != nil {
			http.Error(w, "fetch failed", http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = io.Copy(w, io.LimitReader(resp.Body, 5<<20))
	}
}
`,
			Explanation:   "The handler fetches whatever URL the {{.Param}}_url parameter names from inside the network and returns the body, so internal services and cloud metadata become reachable through it.",
			Exploit:       "GET ?{{.Param}}_url=http://169.254.169.254/latest/meta-data/iam/security-credentials/ returns the instance's cloud credentials.",
			Fix:           "Accept only https URLs whose host is on an allow-list, and do not follow redirects that could leave it.",
			Remediation:   []string{"Allow-list destination hosts and schemes.", "Disable redirects or re-check every hop.", "Block link-local and private ranges at the egress proxy."},
			Preconditions: []string{"Network access to the preview endpoint.", "Internal services or a metadata endpoint reachable from the server."},
		},
	}
}
