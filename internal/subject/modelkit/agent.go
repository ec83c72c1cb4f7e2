package modelkit

import (
	"fmt"

	"github.com/vulnbench/vulnbench/internal/agent"
	"github.com/vulnbench/vulnbench/internal/subject"
)

// AgentConfig is what an agent adds to Config: how it calls tools and its own step cap.
type AgentConfig struct {
	ToolProtocol string `json:"tool_protocol"`
	// MaxSteps caps the model calls of an attempt when the run's --max-steps is 0 (the agent's
	// default); a run's --max-steps replaces it.
	MaxSteps int `json:"max_steps"`
}

// Validate checks the protocol and the cap.
func (c AgentConfig) Validate() error {
	if c.MaxSteps < 0 {
		return fmt.Errorf("the agent's step cap %d is negative", c.MaxSteps)
	}
	_, err := agent.ParseProtocol(c.ToolProtocol)
	return err
}

// Protocol is the config's tool protocol (valid once Validate passed).
func (c AgentConfig) Protocol() agent.Protocol {
	p, _ := agent.ParseProtocol(c.ToolProtocol)
	return p
}

// Steps is the step cap of a unit: the run's --max-steps when it sets one, else the agent's.
func (c AgentConfig) Steps(env *subject.Env) int {
	if env == nil {
		return c.MaxSteps
	}
	return c.StepCap(env.Limits)
}

// StepCap is the step cap under the run's limits l: its --max-steps when it sets one, else the
// agent's (an agent kind's Steps declaration).
func (c AgentConfig) StepCap(l subject.Limits) int {
	if l.Steps > 0 {
		return l.Steps
	}
	return c.MaxSteps
}

// ToolProtocolFlag is --tool-protocol, read by every agent.
func ToolProtocolFlag() subject.Flag {
	return subject.Flag{Name: "tool-protocol", Default: "native",
		Usage: "how tools are called: native (the API's tool calls) or text (Thought / Action / Action Input / Observation, for servers without tools)"}
}

// AgentConfigOf reads --tool-protocol, with the agent's own step cap.
func AgentConfigOf(v subject.Values, maxSteps int) AgentConfig {
	return AgentConfig{ToolProtocol: v.String("tool-protocol"), MaxSteps: maxSteps}
}
