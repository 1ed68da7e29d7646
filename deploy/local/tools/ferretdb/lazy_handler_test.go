package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

func TestLazyAttrsHandlerWritesWhatTheBaseHandlerWould(t *testing.T) {
	var direct, lazy bytes.Buffer
	options := &slog.HandlerOptions{
		Level: slog.LevelInfo,
		ReplaceAttr: func(groups []string, attr slog.Attr) slog.Attr {
			if attr.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return attr
		},
	}
	loggers := []*slog.Logger{
		slog.New(slog.NewTextHandler(&direct, options)),
		slog.New(newLazyAttrsHandler(slog.NewTextHandler(&lazy, options))),
	}
	for _, logger := range loggers {
		scoped := logger.With("conn", "127.0.0.1:5000").WithGroup("sql").With("args", []any{`{"_id":"a b"}`})
		scoped.Info("statement", "rows", 1)
		scoped.Debug("not written")
		logger.Warn("plain")
	}
	if direct.String() != lazy.String() {
		t.Fatalf("lazy handler wrote\n%s\nwhere the text handler writes\n%s", lazy.String(), direct.String())
	}
	if !strings.Contains(lazy.String(), `sql.args="[{\"_id\":\"a b\"}]"`) || strings.Contains(lazy.String(), "not written") {
		t.Fatalf("unexpected output:\n%s", lazy.String())
	}
}

type countingHandler struct {
	slog.Handler
	withAttrs *int
}

func (h countingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	*h.withAttrs++
	return countingHandler{h.Handler.WithAttrs(attrs), h.withAttrs}
}

func TestLazyAttrsHandlerFormatsNothingForRecordsBelowTheLevel(t *testing.T) {
	calls := 0
	var out bytes.Buffer
	base := countingHandler{slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn}), &calls}
	logger := slog.New(newLazyAttrsHandler(base))
	for i := 0; i < 100; i++ {
		logger.With("args", i).DebugContext(context.Background(), ">>> SELECT")
	}
	if calls != 0 || out.Len() != 0 {
		t.Fatalf("base WithAttrs called %d times, output %q", calls, out.String())
	}
	logger.With("args", 1).Warn("slow")
	if calls != 1 || !strings.Contains(out.String(), "args=1") {
		t.Fatalf("base WithAttrs called %d times, output %q", calls, out.String())
	}
}
