package diagnose

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// HTTPAnalyzer asks a model behind an OpenAI-compatible chat-completions
// API: POST {Endpoint}/chat/completions with the system prompt
// (SystemPrompt) and the failure JSON as the user message, JSON output
// and temperature 0. The answer is choices[0].message.content, parsed
// with ParseAnswer.
type HTTPAnalyzer struct {
	// Endpoint is the API base URL, e.g. https://api.openai.com/v1.
	Endpoint string
	Model    string
	// APIKeyEnv names the environment variable holding the API key, sent
	// as a bearer token; empty sends none. The key is never logged.
	APIKeyEnv string
	// Timeout of one request; zero means DefaultAnalyzerTimeout.
	Timeout time.Duration
	// Client sends the request; nil means a new http.Client.
	Client *http.Client
	// ID names the analyzer in patch authors; empty means Model.
	ID string
}

// Name returns ID or the model.
func (h HTTPAnalyzer) Name() string {
	if h.ID != "" {
		return h.ID
	}
	return h.Model
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string            `json:"model"`
	Messages       []chatMessage     `json:"messages"`
	ResponseFormat map[string]string `json:"response_format"`
	Temperature    float64           `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// Analyze sends one chat-completions request.
func (h HTTPAnalyzer) Analyze(ctx context.Context, req Request) (Answer, error) {
	if h.Endpoint == "" || h.Model == "" {
		return Answer{}, fmt.Errorf("%w: HTTP analyzer needs an endpoint and a model", ErrAnalyzer)
	}
	key := ""
	if h.APIKeyEnv != "" {
		if key = strings.TrimSpace(os.Getenv(h.APIKeyEnv)); key == "" {
			return Answer{}, fmt.Errorf("%w: environment variable %s (the API key) is empty", ErrAnalyzer, h.APIKeyEnv)
		}
	}
	hide := func(s string) string {
		if key == "" {
			return s
		}
		return strings.ReplaceAll(s, key, "[API KEY]")
	}
	payload, err := req.payload()
	if err != nil {
		return Answer{}, fmt.Errorf("%w: %w", ErrAnalyzer, err)
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultAnalyzerTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(chatRequest{
		Model: h.Model, ResponseFormat: map[string]string{"type": "json_object"}, Temperature: 0,
		Messages: []chatMessage{{Role: "system", Content: SystemPrompt(req.Failure)}, {Role: "user", Content: string(payload)}},
	}); err != nil {
		return Answer{}, fmt.Errorf("%w: encode chat request: %w", ErrAnalyzer, err)
	}
	url := strings.TrimRight(h.Endpoint, "/") + "/chat/completions"
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, &body)
	if err != nil {
		return Answer{}, fmt.Errorf("%w: %s: %s", ErrAnalyzer, url, hide(err.Error()))
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if key != "" {
		hr.Header.Set("Authorization", "Bearer "+key)
	}
	client := h.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return Answer{}, fmt.Errorf("%w: %s did not answer within %s", ErrAnalyzer, url, timeout)
		}
		return Answer{}, fmt.Errorf("%w: POST %s: %s", ErrAnalyzer, url, hide(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4*maxAnswer))
	if err != nil {
		if ctx.Err() != nil {
			return Answer{}, fmt.Errorf("%w: %s did not answer within %s", ErrAnalyzer, url, timeout)
		}
		return Answer{}, fmt.Errorf("%w: read answer of %s: %s", ErrAnalyzer, url, hide(err.Error()))
	}
	if resp.StatusCode/100 != 2 {
		return Answer{}, fmt.Errorf("%w: POST %s: %s: %s", ErrAnalyzer, url, resp.Status, hide(head(bytes.TrimSpace(data), 300)))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return Answer{}, fmt.Errorf("%w: %s answered something that is not a chat completion: %w", ErrAnswer, url, err)
	}
	if len(cr.Choices) == 0 {
		return Answer{}, fmt.Errorf("%w: %s answered no choices", ErrAnswer, url)
	}
	ans, err := ParseAnswer([]byte(cr.Choices[0].Message.Content))
	if err != nil {
		return Answer{}, fmt.Errorf("model %s: %w", h.Model, err)
	}
	return ans, nil
}
