/**
 * ckks-cuda: the shared RNS-CKKS scheme (dev.polyhe.ckks) with its ring arithmetic in GPU memory, through JCuda's
 * driver API and kernels nvcc compiled at build time.
 */
module dev.polyhe.backend.cuda {
    requires transitive dev.polyhe.api;
    requires dev.polyhe.ckks;
    requires jcuda;

    exports dev.polyhe.backend.cuda;

    provides dev.polyhe.api.he.HeBackend with
            dev.polyhe.backend.cuda.CkksCudaBackend;
}
