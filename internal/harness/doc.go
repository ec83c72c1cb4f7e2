// Package harness is what vulnbench knows of each agent CLI it runs as a subject: the npm
// package and pinned version (a row of clis.tsv, which scripts/install-deps.sh installs and
// docs/harness.md lists), where it is installed and how it is shown in the sandbox, the wire
// format it sends by the provider of the unit's model (CLI.API; the gateway translates to a
// provider whose format it does not speak), its non-interactive command line,
// environment and configuration files, its effort setting, and how its final answer is read
// (one file per CLI). The subjects (internal/subject/agentcli, one kind per row) wrap this table; the sandbox (internal/sandbox) runs the
// process and the gateway (internal/gateway) is its only model.
//
// A CLI is installed by scripts/install-deps.sh into vulnbench's npm prefix (progs.NodePrefix) and
// shown read-only at /opt/vulnbench/node_modules (each package finds its native binary beside
// it there). It gets the gateway's token as its key and {gateway} as its base URL; every model
// it would use is the unit's (the gateway enforces that anyway); its own permission prompts
// and sandbox are off (the sandbox is the boundary: the agent must really read files and run
// commands); telemetry, update checks and the providers' server-side web search are off.
//
// # Per CLI (checked against the pinned versions, real binaries, llmtest through the gateway)
//
// Claude Code 2.1.328 (`claude -p --bare --output-format json`):
//   - Speaks Anthropic Messages only, always streamed, to ANTHROPIC_BASE_URL/v1/messages?beta=true
//     with anthropic-beta headers and thinking enabled; metadata.user_id holds a device and
//     session id (left out of the cache key).
//   - --dangerously-skip-permissions is refused as root ("cannot be used with root/sudo
//     privileges"): the sandbox's uid 1000 is why it runs; IS_SANDBOX=1 (set) lets it run as root
//     under --sandbox none.
//   - Without --bare it offers two dozen tools (WebSearch, WebFetch, Agent, Cron...) and reads
//     CLAUDE.md, hooks and the project's .claude/settings.json (hooks, apiKeyHelper, env): a
//     hostile repository's. --bare offers Bash, Edit and Read and reads none of them;
//     --setting-sources user and --strict-mcp-config keep project settings and MCP servers out.
//   - On an API error it still prints its result object, with is_error and the message.
//   - It retries a failed call itself: the gateway answers a fault its stack gave up on with a
//     final 400, so retries are not multiplied.
//
// Codex 0.169.0 (`codex exec --json`):
//   - Speaks the Responses API, streamed, with store=false and the whole input each turn; its
//     input items carry client-made ids, client_metadata and prompt_cache_key carry its thread
//     and installation ids (left out of the cache key). Its shell tool is exec_command
//     ({"cmd": ...}).
//   - The provider is a [model_providers.NAME] in CODEX_HOME/config.toml (wire_api =
//     "responses", env_key names the key's variable); the sandbox fills in placeholders in
//     arguments and environment, not in files, so base_url is passed with -c.
//   - Its own sandbox needs user namespaces (the sandbox withholds them): run it with
//     --dangerously-bypass-approvals-and-sandbox. It offers web_search (OpenAI runs it
//     server-side) unless web_search = "disabled". It reads a prompt from stdin when stdin is
//     not a terminal ("Reading additional input from stdin..."): stdin is /dev/null. It refuses
//     to make its helper links under /tmp (a warning); its home is the sandbox's.
//   - An unknown model id only warns ("Model metadata ... not found"). The last message is
//     written with --output-last-message into the sandbox's /out.
//
// OpenCode 1.18.33 (`opencode run --format json --pure --auto`):
//   - With an OpenAI model it is given a custom provider on @ai-sdk/openai-compatible (bundled
//     in its binary: no npm fetch) and speaks Chat Completions, streamed with include_usage;
//     its built-in openai provider would use the Responses API, its anthropic provider (used
//     for an Anthropic model, baseURL set to the gateway) Anthropic Messages.
//   - It makes a side call per run with its small model to title the session, without tools
//     (small_model is set to the unit's model: the call is metered like the others).
//   - It reads the project's opencode.json (providers, plugins), Claude Code's files and the
//     models.dev catalogue unless told not to (OPENCODE_DISABLE_PROJECT_CONFIG,
//     OPENCODE_DISABLE_CLAUDE_CODE, OPENCODE_DISABLE_MODELS_FETCH, ...); its configuration goes
//     in OPENCODE_CONFIG_CONTENT. Its start-up takes seconds of CPU (a bun binary).
//   - Its JSON events are one per line; the answer is the text parts of the last step.
//
// Kilo 7.7.7 (`kilo run --format json --pure --auto`): OpenCode's fork, run the same way with its
// variables named KILO_ (KILO_CONFIG_CONTENT, KILO_DISABLE_PROJECT_CONFIG, ...). 7.8.1, the
// newest, names native packages the registry does not hold.
//
// Qwen Code 0.24.4 (`qwen --safe-mode --auth-type openai -o json --yolo PROMPT`):
//   - Chat Completions at --openai-base-url; prints one JSON array, whose "result" message holds
//     the answer (is_error and error.message when it failed).
//   - --safe-mode keeps the project's QWEN.md, hooks, extensions, skills and MCP servers out and
//     still reads the home's settings.json (telemetry, usage statistics, updates off; the effort
//     as model.generationConfig.samplingParams.reasoning_effort). --bare would drop the settings
//     and half the tools (glob, grep_search).
//   - It sends max_tokens, which OpenAI's reasoning models refuse ("Use 'max_completion_tokens'
//     instead"): use it with a chat model or an OpenAI-compatible server.
//
// pi 0.73.1 (`pi -p --mode json --no-session ... --offline`):
//   - Its provider is declared in models.json in PI_CODING_AGENT_DIR (the base URL written by the
//     sandbox: sandbox.File.Expand); an apiKey starting with "!" would be run as a shell command.
//     Any of the four wire formats; --thinking takes the five effort levels (the model declared
//     "reasoning" when an effort is set).
//   - A prompt starting with @ would be read as a file to attach: such a prompt gets a space.
//   - The answer is the last assistant message of its agent_end event.
//
// Cline 3.0.65 (`cline --json --data-dir {home}/.cline/data -P openai-compatible`):
//   - Its provider settings are settings/providers.json in the data directory, as `cline auth`
//     writes them; without their updatedAt it ignores them and fails with "Cannot connect to
//     API ... (ConnectionRefused)" after a minute of retries.
//   - Its shell tool is run_commands ({"commands": [...]}); its telemetry goes to a local log sink.
//   - The answer is the run_result line's text; a finishReason other than completed is the error.
//   - With --json it refuses to start without a prompt argument ("JSON output mode requires a
//     prompt argument or piped stdin"), and appends piped standard input to that argument after a
//     blank line, trimmed: the prompt's first paragraph is the argument, the rest its input.
//
// Gemini CLI 0.61.0 (`gemini -p PROMPT -o json --yolo --skip-trust`):
//   - GOOGLE_GEMINI_BASE_URL makes it use its "gateway" auth with GEMINI_API_KEY as the key
//     (x-goog-api-key); it speaks Gemini's generateContent (streamed).
//   - Alone, GOOGLE_GEMINI_BASE_URL selects its "gateway" auth, which headless mode refuses
//     ("Invalid auth method selected."): settings select the API key's, with that base URL.
//   - It offers google_web_search (the model with Google Search grounding: the web behind the
//     sandbox's back) and web_fetch: excluded in its settings (tools.exclude).
//   - Its shell tool returns a command's output only up to its first NUL byte.
//   - The effort is a thinkingBudget for the unit's model in settings.json's
//     modelConfigs.customOverrides. It prints its JSON (an error too) on stderr when it fails.
//
// Crush (@charmland/crush 0.96.1) is not among them: its package downloads its binary from
// GitHub when installed ("Installation failed: Request failed: getaddrinfo ENOTFOUND
// github.com"), and nothing but the registries is reachable here.
package harness
