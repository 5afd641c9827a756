// flashattn — umbrella header: everything a user of the C++ API needs.
#pragma once

#include "flashattn/attention.hpp"
#include "flashattn/device.hpp"
#include "flashattn/kvcache.hpp"
#include "flashattn/run_info.hpp"
#include "flashattn/status.hpp"
#include "flashattn/tensor.hpp"
#include "flashattn/version.hpp"
