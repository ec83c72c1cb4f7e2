// Package harness is what vulnbench knows of each agent CLI it runs as a subject: the npm
// package and pinned version, where it is installed and how it is shown in the sandbox, the
// wire format it sends by the provider of the unit's model, its non-interactive command line,
// environment and configuration files, and how its final answer is read. The subjects
// (claude-code, codex, opencode) wrap this table; the sandbox (internal/sandbox) runs the
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
package harness
