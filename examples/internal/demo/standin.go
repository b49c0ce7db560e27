package demo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
)

// StandInName names the scripted stand-in in results: the fallback judge
// shows up as "llmjudge/scripted-stand-in" (and the cascade around it as
// "cascade(llmjudge/scripted-stand-in)").
const StandInName = "scripted-stand-in"

// StandInLabel describes the offline fallback judge in the examples' output.
const StandInLabel = "fallback judge: scripted stand-in for an LLM (offline simulation; no model runs)"

// ScriptedStandInLLM is a scripted stand-in for an LLM: a simulation that
// implements llms.Model so that the real LLM judge (llmjudge.Judge) and the
// real cascade can run offline. No model runs and nothing is computed from
// the texts: it reads the decision and the data blocks out of the judge's
// prompt (the prompt format of llmjudge.PromptVersion 1.0.0) and, when the
// question and answer are one of the Cases, replies what standInScript says
// a model would reply to that decision, one scripted reply per sampled
// choice. Evidence lines in the script name no context; the stand-in adds
// the ID of the context block that holds the quoted words, as a model
// quoting its evidence would.
//
// Anything off the script — another question or answer, a prompt it cannot
// read — gets the reply "I can't tell.", which the judge counts as an
// abstention, never as a yes or a no. The stand-in returns no token
// log-probabilities, like a server without them; give the judge
// Mode: llmjudge.SamplesOnly (NewStandInJudge does).
//
// Safe for concurrent use.
type ScriptedStandInLLM struct {
	calls, offScript atomic.Int64
}

var _ llms.Model = (*ScriptedStandInLLM)(nil)

// NewStandInJudge returns the LLM judge of package llmjudge over a new
// ScriptedStandInLLM, sampling (the stand-in has no log-probabilities) with
// the judge's default sample count and disagreement rule, and the stand-in
// itself (to count its calls).
func NewStandInJudge() (*llmjudge.Judge, *ScriptedStandInLLM, error) {
	m := &ScriptedStandInLLM{}
	j, err := llmjudge.New(llmjudge.Config{Model: m, Name: StandInName, Mode: llmjudge.SamplesOnly})
	if err != nil {
		return nil, nil, fmt.Errorf("demo: stand-in judge: %w", err)
	}
	return j, m, nil
}

// offScriptReply is what the stand-in says to a prompt its script does not
// cover: neither yes nor no, so the judge abstains.
const offScriptReply = "I can't tell."

// standInScript holds, per case question and decision, the replies the
// stand-in gives to the judge's sampled calls (cycled when more are asked
// for than listed). They are what a careful model would say about the
// Cases; "QUOTE: words" is an evidence line whose context ID the stand-in
// fills in. Correctness is not scripted: it depends on a reference answer
// the script does not know, so the stand-in does not commit to it.
//
// The "escalate" case's groundedness is scripted as a model that is unsure
// whether "a few business days" is supported by "5 to 7 business days":
// three of five samples say yes (quoting the shipping policy), two say no.
// That is more disagreement than the judge accepts, so it abstains.
//
// The "miss" case is scripted as a model that finds the retrieved passage
// irrelevant: the embedded judges certify no retrieval miss on their own
// (no chunk relevance threshold keeps the promise on every source), so the
// fallback settles it.
var standInScript = map[string]map[guard.Decision][]string{
	"Who painted the Mona Lisa and where does it hang?": {
		guard.ChunkRelevance:     {"No"},
		guard.ContextSufficiency: {"No"},
		guard.ContextConflict:    {"No"},
		guard.AnswerRelevance:    {"Yes"},
		guard.Groundedness:       {"No"},
		guard.Contradiction:      {"No"},
	},
	"What is the capital of France?": {
		guard.ChunkRelevance:     {"Yes"},
		guard.ContextSufficiency: {"Yes"},
		guard.ContextConflict:    {"No"},
		guard.AnswerRelevance:    {"Yes"},
		guard.Groundedness:       {"Yes\nQUOTE: Paris is the capital and largest city of France"},
		guard.Contradiction:      {"No"},
	},
	"How long do I have to ask for a refund?": {
		guard.ChunkRelevance:     {"Yes"},
		guard.ContextSufficiency: {"Yes"},
		guard.ContextConflict:    {"No"},
		guard.AnswerRelevance:    {"Yes"},
		guard.Groundedness:       {"No"},
		guard.Contradiction:      {"Yes"},
	},
	"How long does standard shipping take?": {
		guard.ChunkRelevance:     {"Yes"},
		guard.ContextSufficiency: {"Yes"},
		guard.ContextConflict:    {"No"},
		guard.AnswerRelevance:    {"Yes"},
		guard.Groundedness: {
			"Yes\nQUOTE: Standard shipping takes 5 to 7 business days",
			"No",
			"Yes\nQUOTE: Standard shipping takes 5 to 7 business days",
			"No",
			"Yes\nQUOTE: Standard shipping takes 5 to 7 business days",
		},
		guard.Contradiction: {"No"},
	},
}

// standInDecisions maps a phrase of the judge's question for each decision
// to the decision (llmjudge prompt version 1.0.0).
var standInDecisions = []struct {
	phrase string
	d      guard.Decision
}{
	{"information relevant to answering", guard.ChunkRelevance},
	{"hold enough information", guard.ContextSufficiency},
	{"materially disagree", guard.ContextConflict},
	{"address the question", guard.AnswerRelevance},
	{"every claim in the answer supported", guard.Groundedness},
	{"context blocks contradict", guard.Contradiction},
	{"consistent with the reference", guard.Correctness},
}

// GenerateContent replies to one judge prompt from the script, with as many
// choices as llms.WithN asks for (one by default).
func (m *ScriptedStandInLLM) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.calls.Add(1)
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	n := max(o.N, 1)
	var system, user strings.Builder
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			t, ok := p.(llms.TextContent)
			if !ok {
				continue
			}
			if msg.Role == llms.ChatMessageTypeSystem {
				system.WriteString(t.Text)
			} else {
				user.WriteString(t.Text)
			}
		}
	}
	replies, blocks := m.script(system.String(), user.String())
	resp := &llms.ContentResponse{Choices: make([]*llms.ContentChoice, n)}
	for i := range resp.Choices {
		text := offScriptReply
		if len(replies) > 0 {
			text = withContextIDs(replies[i%len(replies)], blocks.contexts)
		}
		resp.Choices[i] = &llms.ContentChoice{Content: text, StopReason: "stop"}
	}
	return resp, nil
}

// Call implements the deprecated single-prompt method.
func (m *ScriptedStandInLLM) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// Calls returns how many model calls the judge made to the stand-in.
func (m *ScriptedStandInLLM) Calls() int { return int(m.calls.Load()) }

// OffScript returns how many of those calls the script did not cover (and
// were answered "I can't tell.").
func (m *ScriptedStandInLLM) OffScript() int { return int(m.offScript.Load()) }

// script finds the scripted replies for a prompt; nil when it is off the
// script.
func (m *ScriptedStandInLLM) script(system, user string) ([]string, promptBlocks) {
	b, err := parseBlocks(user)
	d, ok := decisionOf(system)
	if err != nil || !ok {
		m.offScript.Add(1)
		return nil, b
	}
	for _, c := range Cases {
		if b.question != c.Question || (b.hasAnswer && b.answer != c.Answer) {
			continue
		}
		if r := standInScript[c.Question][d]; len(r) > 0 {
			return r, b
		}
	}
	m.offScript.Add(1)
	return nil, b
}

// decisionOf reads which decision the judge asks about from its system
// message ("The question to decide: …").
func decisionOf(system string) (guard.Decision, bool) {
	const marker = "The question to decide: "
	i := strings.Index(system, marker)
	if i < 0 {
		return 0, false
	}
	q := system[i+len(marker):]
	if j := strings.IndexByte(q, '\n'); j >= 0 {
		q = q[:j]
	}
	q = strings.ToLower(q)
	for _, sd := range standInDecisions {
		if strings.Contains(q, sd.phrase) {
			return sd.d, true
		}
	}
	return 0, false
}

// promptBlocks is the data of a judge prompt.
type promptBlocks struct {
	question  string
	answer    string
	hasAnswer bool
	contexts  []guard.Context
}

// parseBlocks reads the data blocks of a judge's user message: a block opens
// with "<<<BEGIN KIND CODE[ id=ID]>>>" and closes with "<<<END KIND CODE>>>".
func parseBlocks(user string) (promptBlocks, error) {
	var b promptBlocks
	lines := strings.Split(user, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if !strings.HasPrefix(line, "<<<BEGIN ") || !strings.HasSuffix(line, ">>>") {
			continue
		}
		f := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(line, "<<<"), ">>>"))
		if len(f) < 3 {
			return b, fmt.Errorf("demo: stand-in: malformed block line %q", line)
		}
		kind, code, id := f[1], f[2], ""
		if len(f) > 3 {
			id = strings.TrimPrefix(f[3], "id=")
		}
		end := "<<<END " + kind + " " + code + ">>>"
		var body []string
		closed := false
		for i++; i < len(lines); i++ {
			if lines[i] == end {
				closed = true
				break
			}
			body = append(body, lines[i])
		}
		if !closed {
			return b, fmt.Errorf("demo: stand-in: block %s %s never closes", kind, code)
		}
		text := strings.Join(body, "\n")
		switch kind {
		case "QUESTION":
			b.question = text
		case "ANSWER":
			b.answer, b.hasAnswer = text, true
		case "CONTEXT":
			b.contexts = append(b.contexts, guard.Context{ID: id, Text: text})
		}
	}
	if b.question == "" {
		return b, errors.New("demo: stand-in: no QUESTION block")
	}
	return b, nil
}

// withContextIDs turns each "QUOTE: words" line of a scripted reply into
// "QUOTE [id]: words", id naming the first context that holds the words.
// Words no context holds get the ID "unknown", and the judge will not
// verify them.
func withContextIDs(reply string, contexts []guard.Context) string {
	lines := strings.Split(reply, "\n")
	for k, line := range lines {
		words, ok := strings.CutPrefix(line, "QUOTE: ")
		if !ok {
			continue
		}
		id := "unknown"
		for _, c := range contexts {
			if strings.Contains(c.Text, words) {
				id = c.ID
				break
			}
		}
		lines[k] = "QUOTE [" + id + "]: " + words
	}
	return strings.Join(lines, "\n")
}
