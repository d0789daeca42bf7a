# Developer and CI entry points. `make help` lists the targets: each documented target carries a
# `## description` after its prerequisites, which is all a new target needs to appear there.

VENV := .venv
PY := $(VENV)/bin/python
UPY := $(VENV)/bin/micropython
RUFF := $(VENV)/bin/ruff
STAMP := $(VENV)/.stamp
NODE_STAMP := node_modules/.stamp

# The board heap of laptop runs, defined once in tools/hostenv.py (BOARD_HEAP: an ESP32's heap
# after its one growth, in 32-bit-equivalent words, the `w` suffix scaling by word size). pytest's
# MicroPython runs use it (they read UPY_HEAP), and so does `make run` (RUN_HEAP).
BOARD_HEAP := $(shell python3 tools/hostenv.py heap)
UPY_HEAP ?= $(BOARD_HEAP)
export UPY_HEAP
# The core tests under MicroPython get a test heap instead (hostenv.CORE_TEST_HEAP: the reference
# models in the tests need more than the board's core), on both word sizes; override with
# make test-upy CORE_HEAP=2wM.
CORE_HEAP ?= $(shell python3 tools/hostenv.py core-heap)
GOAL_FS_64 := $(shell python3 tools/hostenv.py goal-fs-64)
# The 32-bit unix port (the board's word size): MICROPY32=/path/to/micropython-32, else
# micropython-32 on PATH or in .venv/bin (docs/memory.md, "Building the 32-bit unix port").
# `make micropython32` builds one into .venv/bin (tools/build_micropython32.sh; its variables,
# such as MICROPYTHON_SRC=/path/to/a/checkout, pass through). Without one, test-upy and mem run
# the 64-bit port only, and say so.

.DEFAULT_GOAL := help
.PHONY: help venv test test-py test-upy check flaky lint fmt clean distclean bench fairness run mem soak replay log-flash \
	card stress micropython32

help: ## list the targets
	@grep -hE '^[a-zA-Z0-9_.-]+:.*## ' $(MAKEFILE_LIST) \
		| awk 'BEGIN {FS = ":.*## "} {printf "  %-14s %s\n", $$1, $$2}'

$(STAMP): requirements-dev.txt $(NODE_STAMP)
	python3 -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -r requirements-dev.txt
	touch $@

# esbuild, which bundles the phone client's script (firmware/web/src/) for the board image:
# pinned in package.json / package-lock.json, installed by npm ci into node_modules/. Without
# npm this warns and goes on (the Python tools install), and every build of the page then fails
# saying esbuild is missing (apt-get install nodejs npm, then make venv again).
$(NODE_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null; then \
		npm ci --no-audit --no-fund && touch $@; \
	else \
		echo "WARNING: npm is missing: no esbuild, so the phone client cannot be built (apt-get install nodejs npm; make venv)" >&2; \
	fi

venv: $(STAMP) ## create .venv with the pinned host tools (requirements-dev.txt) and node_modules/ (esbuild, package.json)

micropython32: $(STAMP) ## build the 32-bit unix port (the board's word size) into .venv/bin/micropython-32 (gcc-multilib)
	tools/build_micropython32.sh

# make test runs pytest on TEST_WORKERS processes (pytest-xdist): most of the suite waits on a
# firmware process or a browser, not on a core. `--dist loadgroup` keeps a module that shares a
# Chromium or a built image on one worker (host_tests/conftest.py groups them); every other
# test goes wherever a worker is free. The core tests under MicroPython (64- and 32-bit) are
# part of it: host_tests/test_upy_suite.py runs tools/upytest.py as make test-upy does.
TEST_WORKERS ?= 3
test: lint test-py ## THE test command (CI runs it): lint, then every suite, in parallel (~10 min)

test-py: $(STAMP) ## pytest (host_tests/, the MicroPython and browser suites too) on TEST_WORKERS workers
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup

check: lint $(STAMP) ## the edit-test loop (~1 min): lint + the CPython tests needing no firmware process or browser
	MAZE_QUICK=1 $(PY) -m pytest -m "not upy and not browser" -n 2 --dist loadgroup -q

# flaky: one test (or file) N times; LOAD=1 runs a second copy beside each run (both cores
# busy, as on a loaded CI machine); failing runs' output in build/flaky/.
TEST ?=
N ?= 20
LOAD ?=
flaky: $(STAMP) ## rerun a test to catch a flake: make flaky TEST=path::name N=20 [LOAD=1] -> build/flaky/
	@test -n "$(TEST)" || { echo "error: TEST is not set: make flaky TEST=host_tests/x.py::test_y N=20" >&2; exit 2; }
	$(PY) tools/flaky.py $(TEST) --runs $(N) $(if $(LOAD),--load)

test-upy: $(STAMP) ## only the core tests under the MicroPython unix port: 64-bit, and 32-bit if found
	$(UPY) -X heapsize=$(CORE_HEAP) tools/upytest.py
	@upy32="$$($(PY) tools/hostenv.py micropython32)"; \
	if [ -n "$$upy32" ]; then \
		echo "$$upy32 -X heapsize=$(CORE_HEAP) tools/upytest.py   # the 32-bit unix port"; \
		"$$upy32" -X heapsize=$(CORE_HEAP) tools/upytest.py; \
	else \
		echo "WARNING: the core tests ran on the 64-bit unix port only (above)"; \
	fi

lint: $(STAMP) ## ruff lint and format check
	$(RUFF) check .
	$(RUFF) format --check .

fmt: $(STAMP) ## apply ruff fixes and formatting (`make lint` then shows what is left)
	$(RUFF) check --fix --exit-zero .
	$(RUFF) format .

clean: ## remove build output and caches (keeps .venv)
	rm -rf build .pytest_cache .ruff_cache .hypothesis test-results playwright-report
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -path ./$(VENV) -prune -o -name '*.mpy' -type f -exec rm -f {} +

distclean: clean ## clean, and remove .venv and node_modules too
	rm -rf $(VENV) node_modules

RUN_HEAP ?= $(BOARD_HEAP)
# LAN=1 serves every interface, so phones on the same network can join (default: this laptop
# only); HTTP_PORT moves the game from 8080 (a busy port says so and names this option).
# The flash is build/flash/, kept between runs like a board's (a restart resumes the match;
# MAZE_FLASH_DIR=/path picks another folder); FRESH=1 empties it first (MAZE_FRESH=1).
LAN ?=
HTTP_PORT ?= $(or $(MAZE_HTTP_PORT),8080)
FRESH ?=
run: $(STAMP) ## host a game on this laptop, flash in build/flash/ (LAN=1: phones join too; HTTP_PORT=8080; FRESH=1: blank flash); Ctrl-C stops
	MICROPY_MICROPYTHON=$(CURDIR)/$(UPY) MAZE_HEAP=$(RUN_HEAP) MAZE_HTTP_PORT=$(HTTP_PORT) \
		MAZE_BIND=$(if $(LAN),0.0.0.0,127.0.0.1) $(if $(FRESH),MAZE_FRESH=1) sh tools/run_host.sh

card: $(STAMP) ## printable join card with the Wi-Fi and game QR codes -> build/card/ (SETTINGS=settings.json, default ./settings.json; SSID=...)
	$(PY) tools/join_card.py $(if $(SETTINGS),--settings $(SETTINGS)) $(if $(SSID),--ssid "$(SSID)")

bench: $(STAMP) ## benchmarks: per-move CPU, allocation, instructions, wire size, latency -> build/bench.json
	$(PY) tools/bench.py

# mem: the bisections run on the 32-bit unix port when there is one (the first lines say which
# binary; without one they are 64-bit, and say so), then one run of each layout on the 64-bit
# port at its budget heap (hostenv.BUDGET_*_64) as the secondary figures: bisecting that too
# would double the time. --bisect starts at the budget and the steps below it: an unchanged image
# takes two or three runs (~20 min in all).
mem: $(STAMP) ## smallest heap for 2 players + 4 observers over 2,000 moves, .mpy on flash and in ROMFS (32-bit if found) -> build/mem*.json
	$(PY) tools/mem_budget.py --bisect --json build/mem.json
	$(PY) tools/mem_budget.py --bisect --romfs --json build/mem-romfs.json
	$(PY) tools/mem_budget.py --budget --binary $(UPY) --json build/mem-64.json
	$(PY) tools/mem_budget.py --budget --romfs --binary $(UPY) --json build/mem-64-romfs.json
	@# a figure, not a budget: the 64-bit filesystem image at its goal heap fits in some runs only
	$(PY) tools/mem_budget.py --heap $(GOAL_FS_64) --binary $(UPY) --json build/mem-64-goal.json \
		|| echo "mem: the 64-bit filesystem image did not fit $(GOAL_FS_64) this run (a figure: build/mem-64-goal.json)"

log-flash: $(STAMP) ## the match log's flash cost on LittleFS: erases, bytes, per-move latency estimate, lifetime -> build/log-flash.json
	$(PY) tools/log_flash_cost.py --json build/log-flash.json

replay: $(STAMP) ## check a match log (docs/log.md): make replay LOG=maze-duel-17.log [JSON=1]
	@test -n "$(LOG)" || { echo "error: LOG is not set: make replay LOG=path/to/maze-duel-17.log (the result's match log link, or build/flash/log/match-N.log)" >&2; exit 2; }
	$(PY) tools/replay.py $(LOG) $(if $(JSON),--json)

# The long soak (tools/soak.py, docs/performance.md "Soak"): SOAK_MINUTES of matches back to
# back with chaos on the board image at its layout's heap; with MICROPY32 set, on the 32-bit port.
SOAK_MINUTES ?= 15
SOAK_LAYOUT ?= romfs
soak: $(STAMP) ## matches back to back with chaos at the board heap, SOAK_MINUTES=15 SOAK_LAYOUT=romfs|filesystem -> build/soak.json
	$(PY) tools/soak.py --minutes $(SOAK_MINUTES) --layout $(SOAK_LAYOUT)

# The robustness figures (tools/stress.py, docs/performance.md "Robustness"): idle connects,
# upgrade bursts, slowloris, unjoined pingers, a flood and a stall beside a valid player, and the
# rates at which the limits trigger, on the board image at the board heaps: the 32-bit unix port
# (MICROPY32) at make mem's budgets and the 64-bit one at 84wK / 64wK. STRESS_ARGS=--quick for a
# short run, STRESS_ARGS="--only 64-romfs" for one board.
STRESS_ARGS ?=
stress: $(STAMP) ## floods, bursts and rate limits against the board image at the board heaps (~15 min) -> build/stress.json
	$(PY) tools/stress.py $(STRESS_ARGS)

RULESET ?=
BOTS ?= 51
fairness: $(STAMP) ## per ruleset: placement fairness over 1,000 seeds, vision share, median bot match (RULESET=sight, BOTS=51)
	$(PY) tools/fairness.py 1000 --bots $(BOTS) $(if $(RULESET),--ruleset $(RULESET))

# --- Board: image, deploy, flashing (docs/hardware.md) ---------------------------------------
# PORT    serial port: /dev/ttyUSB0, /dev/ttyACM0 (ESP32-S3 native USB), /dev/pts/N (virtual board)
# CHIP    esp32 | esp32s3: esptool's --chip, and where the firmware goes (0x1000 | 0x0)
# BIN     the MicroPython firmware .bin for flash-firmware
# MARCH   mpy-cross -march for build/deploy (xtensawin); default: portable bytecode
# FROZEN  FROZEN=1: game/net/microdot are frozen into the firmware (manifest.py); ship the rest
# ROMFS   ROMFS=1: build also writes build/image.romfs; deploy puts the code in the board's
#         ROMFS partition (firmware with ROMFS, docs/hardware.md) and the rest on its filesystem.
#         Without it deploy picks by itself: ROMFS when the board's firmware has a partition the
#         code fits in, else the filesystem (FILESYSTEM=1: always the filesystem)
# READABLE READABLE=1: keep the source's names and line numbers in the image (tracebacks on a
#         board read like the source; the image then needs more heap, docs/memory.md)
# RESUME  RESUME=1: never reset the board (the virtual board, whose process would end)
# BOOT    BOOT=1: make vboard runs the deployed boot.py + main.py instead of the REPL
# SETTINGS SETTINGS=path/to/settings.json: build puts its network into the join QR codes (the
#         TV screen shows them; make card prints them); copy the same file to the board
PORT ?=
CHIP ?= esp32
BAUD ?= 460800
BIN ?=
MARCH ?=
FROZEN ?=
ROMFS ?=
FILESYSTEM ?=
READABLE ?=
RESUME ?=
BOOT ?=
SETTINGS ?=
SSID ?=
IMAGE ?= build/image
VFLASH ?= build/vflash
FLASH_OFFSET = $(if $(filter esp32,$(CHIP)),0x1000,0x0)

.PHONY: build deploy board-check repl logs flash-erase flash-firmware vboard need-port need-esptool

need-port:
	@test -n "$(PORT)" || { echo "error: PORT is not set: make $(MAKECMDGOALS) PORT=/dev/ttyUSB0 (see ls /dev/ttyUSB* /dev/ttyACM*)" >&2; exit 2; }

need-esptool: $(STAMP)
	@$(PY) -c "import esptool" 2>/dev/null || { echo "error: esptool is missing: $(PY) -m pip install esptool==5.6.0" >&2; exit 2; }
	@case "$(CHIP)" in esp32|esp32s3) ;; *) echo "error: CHIP must be esp32 or esp32s3, not '$(CHIP)'" >&2; exit 2;; esac

build: $(STAMP) ## board image in build/image (options: MARCH=xtensawin, FROZEN=1, ROMFS=1, READABLE=1, SETTINGS=settings.json)
	$(PY) tools/build_image.py --out $(IMAGE) $(if $(MARCH),--march $(MARCH)) $(if $(FROZEN),--frozen) $(if $(ROMFS),--romfs) $(if $(READABLE),--readable) $(if $(SETTINGS),--settings $(SETTINGS))

deploy: need-port build ## copy changed files to the board (ROMFS when it has a partition), reset it: make deploy PORT=/dev/ttyUSB0
	$(PY) tools/deploy.py --port $(PORT) --image $(IMAGE) $(if $(RESUME),--resume) $(if $(ROMFS),--romfs,$(if $(FILESYSTEM),,--auto))

# board-check: what the board's firmware has, its memory and flash, then the deployed image's
# self-test on it (a bot match of MOVES moves in-process) and a verdict; changes nothing deployed
# (docs/hardware.md, "Check a board first"). IMAGE: the image deployed (its names file).
MOVES ?= 200
board-check: need-port $(STAMP) ## check a board first: firmware, memory, flash, a self-test match, a verdict: PORT=... [MOVES=200]
	$(PY) tools/board_check.py --port $(PORT) --image $(IMAGE) --moves $(MOVES) $(if $(RESUME),--resume)

repl: need-port $(STAMP) ## MicroPython prompt on the board (Ctrl-C stops the game, Ctrl-] quits)
	$(PY) -m mpremote connect $(PORT) $(if $(RESUME),resume) repl

logs: need-port $(STAMP) ## follow the board's output without resetting it (copy: build/board.log)
	@mkdir -p build
	$(PY) -m mpremote connect $(PORT) resume repl --capture build/board.log

flash-erase: need-port need-esptool ## erase the board's whole flash: PORT=... CHIP=esp32|esp32s3
	$(PY) -m esptool --chip $(CHIP) --port $(PORT) erase-flash

flash-firmware: need-port need-esptool ## write MicroPython: PORT=... CHIP=esp32|esp32s3 BIN=file.bin
	@test -n "$(BIN)" || { echo "error: BIN is not set: make flash-firmware PORT=$(PORT) CHIP=$(CHIP) BIN=path/to/ESP32_GENERIC-v1.xx.bin" >&2; exit 2; }
	@test -f "$(BIN)" || { echo "error: no firmware file '$(BIN)'" >&2; exit 2; }
	$(PY) -m esptool --chip $(CHIP) --port $(PORT) --baud $(BAUD) write-flash $(FLASH_OFFSET) $(BIN)

vboard: $(STAMP) ## virtual board on a pty, flash in build/vflash; BOOT=1 runs the deployed game (ROMFS=1: code from build/image.romfs)
	MAZE_HTTP_PORT=$${MAZE_HTTP_PORT:-8080} MAZE_DNS_PORT=$${MAZE_DNS_PORT:-5353} \
	MAZE_BIND=$${MAZE_BIND:-127.0.0.1} \
		$(PY) tools/virtual_board.py --flash $(VFLASH) $(if $(BOOT),--boot) $(if $(ROMFS),--romfs $(IMAGE).romfs)
