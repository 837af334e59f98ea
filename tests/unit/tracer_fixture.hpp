// Shared helpers for tests that drive the public roctracer API through libroctracer64.so.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <rocprof-mpi/pool_stats.h>
#include <roctracer/roctracer.h>
#include <roctracer/roctracer_ext.h>
#include <roctracer/roctracer_roctx.h>
#include <roctracer/roctx.h>

namespace rocprof::test {

// A copy of one delivered record, with its message copied out of the pool buffer.
struct CollectedRecord {
  activity_record_t record;
  std::string message;
  bool has_message;
};

// Buffer callback target: copies every delivered record.
class RecordCollector {
 public:
  static void on_buffer(const char* begin, const char* end, void* arg) {
    auto* self = static_cast<RecordCollector*>(arg);
    const std::lock_guard lock(self->mutex_);
    ++self->buffers_;
    const auto* record = reinterpret_cast<const activity_record_t*>(begin);
    const auto* last = reinterpret_cast<const activity_record_t*>(end);
    while (record < last) {
      const bool has_message =
          record->domain == ACTIVITY_DOMAIN_ROCTX && record->mark_message != nullptr;
      self->records_.push_back(
          {*record, has_message ? std::string(record->mark_message) : std::string(), has_message});
      roctracer_next_record(record, &record);
    }
  }

  std::vector<CollectedRecord> records() const {
    const std::lock_guard lock(mutex_);
    return records_;
  }
  std::size_t buffers() const {
    const std::lock_guard lock(mutex_);
    return buffers_;
  }

  roctracer_properties_t properties(std::size_t buffer_size = 4096) {
    roctracer_properties_t properties{};
    properties.buffer_size = buffer_size;
    properties.buffer_callback_fun = &RecordCollector::on_buffer;
    properties.buffer_callback_arg = this;
    return properties;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<CollectedRecord> records_;
  std::size_t buffers_ = 0;
};

// Leaves the process-wide tracer as it found it: nothing enabled, no pools, running.
class TracerTest : public ::testing::Test {
 protected:
  void TearDown() override {
    roctracer_disable_callback();
    roctracer_disable_activity();
    for (roctracer_pool_t* pool : pools_) roctracer_close_pool_expl(pool);
    pools_.clear();
    roctracer_close_pool();
    roctracer_start();
    while (roctracer_activity_pop_external_correlation_id(nullptr) == ROCTRACER_STATUS_SUCCESS) {
    }
  }

  roctracer_pool_t* open_pool(RecordCollector& collector, std::size_t buffer_size = 4096) {
    roctracer_properties_t properties = collector.properties(buffer_size);
    roctracer_pool_t* pool = nullptr;
    EXPECT_EQ(roctracer_open_pool_expl(&properties, &pool), ROCTRACER_STATUS_SUCCESS)
        << roctracer_error_string();
    pools_.push_back(pool);
    return pool;
  }

  std::vector<roctracer_pool_t*> pools_;
};

}  // namespace rocprof::test
