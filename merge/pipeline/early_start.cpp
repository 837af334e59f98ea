#include "merge/pipeline/early_start.hpp"

#include <exception>

#include <fmt/format.h>

#include "merge/parallel/mpi_start.hpp"

namespace rocprof::merge {

void EarlyStart::begin(const MergeOptions& options, const MergeSettings& settings, bool may_check) {
  const auto place = launch_place_from_environment();
  if (!place || place->processes <= 1) return;
  leave_out_network_layers(*place);
  if (!may_check) return;
  try {
    // Its name ends at random (EndpointSpill): the place is the launcher's word, not yet
    // MPI's, and two merges may write beside one output.
    spill_.emplace(fmt::format("{}.messages.{}", options.output, place->index));
    ahead_.emplace(*spill_, spill_helpers(place->on_node));
    CheckHelperSetting helpers = check_helper_setting(settings.check_helpers, place->on_node);
    helpers.every_chunk = options.skip_bad;
    check_.emplace(options.inputs, *place, on_checked(), on_refused(), helpers);
  } catch (const std::exception&) {  // done again, and told, once MPI has started
    check_.reset();
    ahead_.reset();
    spill_.reset();
  }
}

std::optional<CheckedShare> EarlyStart::take_share(const MergeGroup& group) {
  if (!check_) return std::nullopt;
  std::optional<CheckedShare> share = check_->take(group);
  check_.reset();
  if (!share) {
    ahead_.reset();
    spill_.reset();
  }
  return share;
}

void EarlyStart::make_spill(const MergeGroup& group, const std::string& output) {
  if (spill_) return;
  spill_.emplace(fmt::format("{}.messages.{}", output, group.index()));
  ahead_.emplace(*spill_, spill_helpers(static_cast<std::size_t>(group.processes_on_node())));
}

RankSet::Checked EarlyStart::on_checked() {
  return [this](std::int32_t rank, const format::RankFileReader& reader) {
    ahead_->offer(rank, reader);
  };
}

RankSet::Refused EarlyStart::on_refused() {
  return [this] { ahead_->abandon(); };
}

void EarlyStart::drop_spill() noexcept {
  ahead_.reset();
  spill_.reset();
}

}  // namespace rocprof::merge
