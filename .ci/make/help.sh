#!/usr/bin/env bash
# help.sh MAKEFILE...: make help. Each target with a "## text" comment, under
# the "##@ section" lines before it.
set -euo pipefail
awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"}
	/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-18s\033[0m %s\n", $1, $2 }
	/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($0, 5) }' "$@"
