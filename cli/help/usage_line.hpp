// One usage line in --help: CLI11's own ("Usage: tool [OPTIONS] inputs...") replaced by the
// tool's, which says where the application or the output goes.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <utility>

namespace rocprof::cli {

class UsageLine final : public CLI::Formatter {
 public:
  explicit UsageLine(std::string usage) : usage_(std::move(usage)) {}
  std::string make_usage(const CLI::App* /*app*/, std::string /*name*/) const override {
    return "Usage: " + usage_ + "\n";
  }

 private:
  std::string usage_;
};

inline void set_usage_line(CLI::App& app, std::string usage) {
  app.formatter(std::make_shared<UsageLine>(std::move(usage)));
}

}  // namespace rocprof::cli
