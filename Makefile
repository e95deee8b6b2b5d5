# Makefile — the README's two commands and a few shortcuts; Meson and Ninja do the building.
#   make demo    build, load 1 warehouse into SQLite, run a 1-minute TPC-C, print the result
#   make check   every test: release quick, ASan/UBSan, TSan and fuzz smoke in one pool (tests/check.sh)
BUILD ?= build

.PHONY: all demo check check-asan check-tsan bench clean FORCE

all: $(BUILD)/dbgauge

$(BUILD)/build.ninja:
	scripts/deps.sh build
	meson setup $(BUILD) -Dbuildtype=release

$(BUILD)/dbgauge: $(BUILD)/build.ninja FORCE
	ninja -C $(BUILD)

demo: all
	scripts/demo.sh $(BUILD)/dbgauge

check:
	tests/check.sh

check-asan:
	tests/run.sh --sanitize

check-tsan:
	tests/run.sh --tsan

clean:
	rm -rf $(BUILD) build-asan build-tsan build-fuzz tests/out
