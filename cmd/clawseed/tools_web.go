package main

import "github.com/clawseed/clawseed/runtime/tools"

// webTools returns web_fetch, web_search, http_request and pdf_read, each
// when it can work.
func webTools(env toolEnv) []tools.Tool {
	return nil
}
