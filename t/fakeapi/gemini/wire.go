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
// (serve.Plan), with the call it makes among the functions offered. The
// prompt is the last typed part of the newest user content: after a
// cancelled turn Gemini sends that turn's prompt (or its call's cancelled
// response) and the next prompt as parts of one content, and only the
// newest is being asked.
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
		typed, result := "", false
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				typed, result = "", true
			} else if t := serve.Typed(p.Text); t != "" && !p.Thought {
				typed, result = t, false
			}
		}
		if result {
			return serve.Script{Text: serve.ToolDone}, nil, false
		}
		if typed == "" {
			continue
		}
		sc = serve.Plan(typed)
		return sc, sc.Call(tools), false
	}
	return serve.Script{Text: "FAKE-REPLY: nothing to answer"}, nil, false
}

// result is the function response the newest user content sends back, as
// "<name> <response>" (the tool's output alone when it has one), "" when
// that content holds none.
func (req *request) result() string {
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		if c.Role != "user" && c.Role != "" {
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionResponse == nil {
				continue
			}
			var fr struct {
				Name     string          `json:"name"`
				Response json.RawMessage `json:"response"`
			}
			json.Unmarshal(*p.FunctionResponse, &fr)
			var out struct {
				Output *string `json:"output"`
			}
			res := string(fr.Response)
			if json.Unmarshal(fr.Response, &out) == nil && out.Output != nil {
				res = *out.Output
			}
			return strings.TrimSpace(fr.Name + " " + res)
		}
		return ""
	}
	return ""
}
