package gemini

import (
	"encoding/json"
	"strings"

	"github.com/agwatch/ag/t/fakeapi/serve"
)

// The part of a generateContent request the fake reads.
type request struct {
	Contents []content `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []struct {
			Name                 string          `json:"name"`
			Parameters           json.RawMessage `json:"parameters"`
			ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
		} `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType   string          `json:"responseMimeType"`
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             string           `json:"text,omitempty"`
	Thought          bool             `json:"thought,omitempty"`
	FunctionCall     *functionCall    `json:"functionCall,omitempty"`
	FunctionResponse *json.RawMessage `json:"functionResponse,omitempty"`
}

type functionCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// The reply, or one chunk of the stream.
type response struct {
	Candidates   []candidate `json:"candidates"`
	Usage        *usage      `json:"usageMetadata,omitempty"`
	ModelVersion string      `json:"modelVersion"`
	ResponseID   string      `json:"responseId"`
}

type candidate struct {
	Content      content `json:"content"`
	FinishReason string  `json:"finishReason,omitempty"`
	Index        int     `json:"index"`
}

type usage struct {
	PromptTokenCount        int64 `json:"promptTokenCount"`
	CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
	TotalTokenCount         int64 `json:"totalTokenCount"`
	CachedContentTokenCount int64 `json:"cachedContentTokenCount,omitempty"`
}

func usageOf(u serve.Usage) *usage {
	return &usage{PromptTokenCount: u.In, CandidatesTokenCount: u.Out, TotalTokenCount: u.Total(),
		CachedContentTokenCount: u.Cached}
}

// declarations are the functions the request offers.
func (req *request) declarations() []serve.Tool {
	var out []serve.Tool
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			p := d.ParametersJSONSchema
			if len(p) == 0 {
				p = d.Parameters
			}
			out = append(out, serve.Tool{Name: d.Name, Params: p})
		}
	}
	return out
}

// plan decides the reply: JSON mode gets an object for its schema; a
// request without functions a short text; a function response after the
// last user text the final text; a user prompt what its markers ask
// (serve.Plan), with the call it makes among the functions offered.
func plan(req *request, tools []serve.Tool) (sc serve.Script, call *serve.ToolCall, isJSON bool) {
	gc := req.GenerationConfig
	if schema := gc.ResponseJSONSchema; len(schema) > 0 || len(gc.ResponseSchema) > 0 || gc.ResponseMimeType == "application/json" {
		if len(schema) == 0 {
			schema = gc.ResponseSchema
		}
		text := "{}"
		if len(schema) > 0 {
			text = serve.FillJSON(schema)
		}
		return serve.Script{Text: text}, nil, true
	}
	if len(tools) == 0 {
		return serve.Script{Text: "Fake title"}, nil, false
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c.Role != "user" && c.Role != "" {
			continue
		}
		var texts []string
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				return serve.Script{Text: serve.ToolDone}, nil, false
			}
			if t := serve.Typed(p.Text); t != "" && !p.Thought {
				texts = append(texts, t)
			}
		}
		if len(texts) == 0 {
			continue
		}
		sc = serve.Plan(strings.Join(texts, "\n"))
		return sc, sc.Call(tools), false
	}
	return serve.Script{Text: "FAKE-REPLY: nothing to answer"}, nil, false
}
