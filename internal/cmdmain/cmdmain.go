// Package cmdmain owns what the repo's commands (cmd/...) do in main: run
// until SIGINT or SIGTERM, and on an error print it after the command's name
// and exit 1.
package cmdmain

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Run calls run with a context that SIGINT or SIGTERM cancels; an error is
// printed to stderr as "name: error" and the process exits 1.
func Run(name string, run func(ctx context.Context) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		stop()
		os.Exit(1)
	}
}
