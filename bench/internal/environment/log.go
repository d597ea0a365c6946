package environment

import (
	"fmt"
	"os"
)

// Logf writes a line of the run's progress to stderr.
func Logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "librarybench: "+format+"\n", args...)
}
