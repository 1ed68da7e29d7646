package main

import (
	"context"
	"log/slog"
)

// lazyAttrsHandler defers a logger's With attributes and groups until a record is handled. FerretDB 1.24 builds a
// child logger with the arguments of every SQL statement it runs (the whole document, as text) before it logs at
// debug level; slog's own handlers format those attributes at once, so at the warn level Berth runs it with, that
// formatting was about 7% of FerretDB's CPU under bench:e2e, for records that are never written.
type lazyAttrsHandler struct {
	base    slog.Handler
	pending []pendingScope
}

// pendingScope is one deferred WithAttrs (attrs set) or WithGroup (group set) call, in the order it was made.
type pendingScope struct {
	attrs []slog.Attr
	group string
}

func newLazyAttrsHandler(base slog.Handler) *lazyAttrsHandler {
	return &lazyAttrsHandler{base: base}
}

func (h *lazyAttrsHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.base.Enabled(ctx, level)
}

// Handle applies the deferred scopes to the base handler, then hands it the record.
func (h *lazyAttrsHandler) Handle(ctx context.Context, record slog.Record) error {
	handler := h.base
	for _, scope := range h.pending {
		if scope.attrs != nil {
			handler = handler.WithAttrs(scope.attrs)
		} else {
			handler = handler.WithGroup(scope.group)
		}
	}
	return handler.Handle(ctx, record)
}

func (h *lazyAttrsHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return h.with(pendingScope{attrs: attrs})
}

func (h *lazyAttrsHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return h.with(pendingScope{group: name})
}

func (h *lazyAttrsHandler) with(scope pendingScope) *lazyAttrsHandler {
	pending := make([]pendingScope, len(h.pending), len(h.pending)+1)
	copy(pending, h.pending)
	return &lazyAttrsHandler{base: h.base, pending: append(pending, scope)}
}
