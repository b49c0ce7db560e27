package llmjudge

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// APIKeyEnv is the environment variable the CLI reads the API key from.
const APIKeyEnv = "OPENAI_API_KEY"

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// ErrNoAPIKey is returned when an OpenAIConfig has no API key.
var ErrNoAPIKey = errors.New("llmjudge: no API key (set " + APIKeyEnv + "; local servers that ignore it accept any non-empty value)")

// OpenAIConfig points a judge at an OpenAI-compatible chat-completions
// server: OpenAI, vLLM, llama.cpp's server, Ollama's /v1 API, and others.
type OpenAIConfig struct {
	// BaseURL is the API root, ending in /v1 (DefaultBaseURL when empty).
	BaseURL string
	// Model is the model name the server knows. Required.
	Model string
	// APIKey is sent as the bearer token. Required, checked before any
	// request.
	APIKey string
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens,
	// for servers that only know the older field.
	LegacyMaxTokens bool
	// Timeout bounds each HTTP request on top of the caller's context; 0
	// means none (the context decides).
	Timeout time.Duration
	// MaxRetries and MaxRetryWait set the Transport's Retry-After handling
	// (defaults 2 and 2s).
	MaxRetries   int
	MaxRetryWait time.Duration
	// Base, when set, sends the HTTP requests (tests, proxies); nil means
	// http.DefaultTransport.
	Base http.RoundTripper
	// Judge sets the judge's other fields; its Model and Name are filled
	// from this config.
	Judge Config
}

func (c *OpenAIConfig) check() error {
	if strings.TrimSpace(c.APIKey) == "" {
		return ErrNoAPIKey
	}
	if c.Model == "" {
		return errors.New("llmjudge: OpenAIConfig.Model is empty")
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("llmjudge: base URL %q: want http(s)://host[:port]/path", c.BaseURL)
	}
	if c.MaxRetries < 0 || c.MaxRetryWait < 0 || c.Timeout < 0 {
		return errors.New("llmjudge: OpenAIConfig: negative retry or timeout setting")
	}
	return nil
}

// NewOpenAIModel returns langchaingo's OpenAI client for cfg, sending its
// requests through a Transport (so that judges get log-probabilities), and
// the Transport. It makes no request.
func NewOpenAIModel(cfg OpenAIConfig) (llms.Model, *Transport, error) {
	if err := cfg.check(); err != nil {
		return nil, nil, err
	}
	t := &Transport{Base: cfg.Base, MaxRetries: cfg.MaxRetries, MaxRetryWait: cfg.MaxRetryWait}
	if t.MaxRetries == 0 {
		t.MaxRetries = 2
	}
	llm, err := openai.New(
		openai.WithBaseURL(cfg.BaseURL),
		openai.WithToken(cfg.APIKey),
		openai.WithModel(cfg.Model),
		openai.WithHTTPClient(&http.Client{Transport: t, Timeout: cfg.Timeout}),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("llmjudge: openai client: %w", err)
	}
	return llm, t, nil
}

// NewOpenAI returns a Judge over an OpenAI-compatible server (see
// OpenAIConfig). It checks the configuration, the API key first, and makes
// no request.
func NewOpenAI(cfg OpenAIConfig) (*Judge, error) {
	llm, _, err := NewOpenAIModel(cfg)
	if err != nil {
		return nil, err
	}
	jc := cfg.Judge
	jc.Model = llm
	if jc.Name == "" {
		jc.Name = cfg.Model
	}
	if cfg.LegacyMaxTokens {
		jc.CallOptions = append(append([]llms.CallOption(nil), jc.CallOptions...), openai.WithLegacyMaxTokensField())
	}
	return New(jc)
}

// NewOpenAIClaimExtractor returns a ClaimExtractor over an OpenAI-compatible
// server.
func NewOpenAIClaimExtractor(cfg OpenAIConfig, maxClaims int) (*ClaimExtractor, error) {
	llm, _, err := NewOpenAIModel(cfg)
	if err != nil {
		return nil, err
	}
	var opts []llms.CallOption
	if cfg.LegacyMaxTokens {
		opts = append(opts, openai.WithLegacyMaxTokensField())
	}
	return NewClaimExtractor(llm, maxClaims, opts...)
}
