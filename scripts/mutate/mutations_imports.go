package main

// importMutations break the rules of the imports (internal/importcheck) on purpose: a leaf
// that imports the service, a plain core that reaches a database driver, and a handler that
// reaches another feature's tables.
var importMutations = []mutation{
	{
		name:    "configuration imports a package of the service's",
		file:    "internal/config/defaults.go",
		find:    "import \"time\"",
		replace: "import (\n\t\"time\"\n\n\t_ \"library/internal/eventstore\"\n)",
		pkg:     "./internal/importcheck/",
	},
	{
		name:    "the catalog's core imports a database driver",
		file:    "internal/catalog/doc.go",
		find:    "package catalog\n",
		replace: "package catalog\n\nimport _ \"github.com/jackc/pgx/v5\"\n",
		pkg:     "./internal/importcheck/",
	},
	{
		name:    "the books' HTTP handlers import the catalog's PostgreSQL package",
		file:    "internal/books/booksapi/http.go",
		find:    "import (",
		replace: "import (\n\t_ \"library/internal/catalog/catalogpg\"\n",
		pkg:     "./internal/importcheck/",
	},
}
