package main

import (
	"flag"
	"fmt"
	"io"

	"library/internal/app/catalogcli"
)

// parseImport reads what follows "import": marc, its flags, and the files.
func parseImport(rest []string) (command, error) {
	if len(rest) == 0 || rest[0] != "marc" {
		return command{}, usageError("import needs marc and the files to import")
	}
	var o catalogcli.ImportOptions
	flags := flag.NewFlagSet("import marc", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	flags.StringVar(&o.Report, "report", "", "write the records refused, and those with warnings, to this file as JSON lines")
	flags.BoolVar(&o.DryRun, "dry-run", false, "say what would be recorded, and record nothing")
	flags.StringVar(&o.Actor, "actor", "", "who the log says imported (default command-line)")
	flags.StringVar(&o.Holdings, "holdings", "", "a holdings mapping file, for copies in other tags than Koha's 952 and 852/876")
	flags.IntVar(&o.Batch, "batch", catalogcli.DefaultImportBatch, "records written in one transaction")
	if err := flags.Parse(rest[1:]); err != nil {
		return command{}, usageError(fmt.Sprintf("import marc: %v", err))
	}
	if o.Files = flags.Args(); len(o.Files) == 0 {
		return command{}, usageError("import marc needs at least one file")
	}
	if o.Batch < 1 {
		return command{}, usageError("import marc: --batch must be at least 1")
	}
	return command{name: "import", imports: o}, nil
}
