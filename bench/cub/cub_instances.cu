// Instantiates many CUB device-wide algorithms so that `nvcc -ptx` emits a large (~5 MB) PTX file
// for ptxlint's speed benchmark. Nothing here is meant to run; the host functions only exist so
// that the kernel templates get instantiated. See make_cub_ptx.sh.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cstddef>

namespace ptxlint_bench {

template <typename Key>
void sort_keys(void *tmp, size_t &bytes, const Key *in, Key *out, int n)
{
    cub::DeviceRadixSort::SortKeys(tmp, bytes, in, out, n);
}

template <typename Key, typename Value>
void sort_pairs(void *tmp, size_t &bytes, const Key *kin, Key *kout, const Value *vin, Value *vout, int n)
{
    cub::DeviceRadixSort::SortPairs(tmp, bytes, kin, kout, vin, vout, n);
}

template <typename T>
void reduce_scan(void *tmp, size_t &bytes, const T *in, T *out, int n)
{
    cub::DeviceReduce::Sum(tmp, bytes, in, out, n);
    cub::DeviceReduce::Max(tmp, bytes, in, out, n);
    cub::DeviceScan::InclusiveSum(tmp, bytes, in, out, n);
    cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n);
}

// Sizes were tuned so that the PTX for sm_90 with -lineinfo is about 5 MB (CUDA 13.0 / CCCL 3.0).
#define SORT_KEY_TYPES(X) X(int) X(unsigned int) X(float) X(double)
#define REDUCE_SCAN_TYPES(X) X(int) X(float) X(double)

#define INST_SORT_KEYS(T) template void sort_keys<T>(void *, size_t &, const T *, T *, int);
#define INST_REDUCE_SCAN(T) template void reduce_scan<T>(void *, size_t &, const T *, T *, int);
#define INST_PAIRS(K, V) template void sort_pairs<K, V>(void *, size_t &, const K *, K *, const V *, V *, int);

SORT_KEY_TYPES(INST_SORT_KEYS)
REDUCE_SCAN_TYPES(INST_REDUCE_SCAN)
INST_PAIRS(int, int)
INST_PAIRS(long long, float)

} // namespace ptxlint_bench
