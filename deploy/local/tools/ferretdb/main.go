// Command berth-ferretdb serves the MongoDB wire protocol with FerretDB v1.24 on a SQLite or PostgreSQL backend,
// for Berth's local runs and tests. It prints "Listening on <address>" once it accepts connections and stops on
// SIGTERM or SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listenAddr := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on")
	handler := flag.String("handler", "sqlite", "backend: sqlite or postgresql")
	sqliteURL := flag.String("sqlite-url", "file:data/", "SQLite folder URL (ends with /)")
	postgresqlURL := flag.String("postgresql-url", "", "PostgreSQL URL for the postgresql backend")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fmt.Fprintf(os.Stderr, "bad -log-level: %v\n", err)
		os.Exit(2)
	}
	logger := slog.New(newLazyAttrsHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:      ferretdb.ListenerConfig{TCP: *listenAddr},
		Logger:        logger,
		Handler:       *handler,
		SQLiteURL:     *sqliteURL,
		PostgreSQLURL: *postgresqlURL,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "berth-ferretdb: %v\n", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	fmt.Fprintf(os.Stderr, "Listening on %s (%s)\n", *listenAddr, f.MongoDBURI())
	if err := f.Run(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "berth-ferretdb: %v\n", err)
		os.Exit(1)
	}
}
