// Where the app finds the API. Empty: the origin that served the page, as when the library's
// own binary serves it. A host that serves the folder web/static from another origin (as it
// is: index.html at its root, this folder at ui/) replaces this file with one that names the
// API, for example
//
//   export const apiBase = "https://api.library.example.org";
//
// and the API's CORS_ORIGINS must then include that host's origin.
export const apiBase = "";
