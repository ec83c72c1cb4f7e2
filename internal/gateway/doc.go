// Package gateway is the recording model gateway of one unit: the only door from a sandboxed
// agent to a model. It serves, on a Unix socket bound into the sandbox (see internal/sandbox's
// forwarder), what the agent CLIs send:
//
//   - Anthropic Messages: POST /v1/messages (Claude Code adds ?beta=true), streamed or not;
//     /v1/messages/count_tokens is answered here with an estimate (free at Anthropic, no call).
//   - OpenAI Chat Completions: POST /v1/chat/completions, streamed or not (a streamed request
//     without stream_options.include_usage gets it: the usage chunk is how calls are counted).
//   - OpenAI Responses: POST /v1/responses, streamed or not.
//   - Gemini generateContent: POST /v1beta/models/MODEL:generateContent, or
//     :streamGenerateContent (countTokens answered here with an estimate).
//   - GET /v1/models, /v1beta/models: the unit's model only.
//
// Any of these formats reaches a model of any provider. A request in the format of the model's
// provider goes as it is (below); one in another format is translated (package translate): its
// body decoded to a canonical request and encoded in the provider's own format (Chat
// Completions for OpenAI), sent unstreamed through the same Config.Model (metered, cached,
// traced alike), and the answer the stack read is rendered in the agent's format, as JSON or
// as the complete stream it asked for; errors too come back in the agent's format. A request
// holding what the other format cannot carry (an image, a server-side tool) is refused with a
// 400 naming it.
//
// The agent is given the gateway's own token (Token) as its API key; the gateway refuses any
// other and never shows it the real one, which only the llm stack holds. Each call's body is
// sent verbatim (its "model" set to the unit's: every call is priced, limited and cached as the
// run's model, whatever the CLI asked for) through Config.Model: the unit's metered model over
// vulnbench's llm stack (cache keyed on the body, retries with Retry-After, adaptive rate
// limits, timeouts, fault classes), whose whole answer (JSON or every server-sent event) is
// then written back to the agent. The agent's own usage reports are ignored: the tokens and
// cost are what the stack read from the provider's answer, counted by the unit's meter, the one
// account of them (Stats only counts what was relayed).
//
// # The trace
//
// The gateway reads what is new in each request (llm.RawRequest.Seen): the tool outputs the
// agent sends back (once per call id; the agent resends the whole conversation each turn) and
// the last message's text. The meter records the call from it, as it records a built-in
// subject's: a tool_result event per new tool output, the model_request (Content: the last
// message), then the model_response (Content: the answer's text; Usage, CostUSD, LatencyMS,
// Cached) and a tool_call event per tool call the model asked for (Name, CallID, Args), or an
// error event. An external agent's turns and tool calls read in the viewer as a built-in
// agent's.
//
// # Faults
//
// A provider's refusal of one request (a 4xx other than a rate limit) goes back to the agent as
// the provider sent it. A fault the stack's retries gave up on, or a refusal by the meter (a
// unit limit, the run's --max-cost), is answered with a 400 in the provider's format naming it,
// so that the CLI stops rather than multiply the retries. Fault returns the first failed call's
// error, for the subject to give the attempt its outcome; after a meter's refusal or a fatal
// provider error (a rejected key, an unknown model) the meter refuses every later call of the
// unit without sending it.
//
// # The runner's meter (how the runner plugs in)
//
// Config.Model is the unit's model as the runner meters it (subject.Env.Model): the runner's
// meter implements llm.RawModel with a CompleteRaw that does what Complete does around the call
// (check the unit's limits and count the step, wait for the shared rate, Reserve the run's
// budget, call next's CompleteRaw, price resp.Usage with the run's prices (0 when resp.Cached),
// Settle, add the usage to the unit's, record the call in the unit's trace) and sets
// resp.CostUSD. A subject gets its gateway with gateway.Start(gateway.Config{Model: raw, Repeat:
// unit.Repeat}) where raw, _ := llm.AsRaw(env.Model), and passes Socket() to
// sandbox.Spec.Gateway.
package gateway
