// Every CUDA source that duet_embed_kernels() embeds compiles through NVRTC, as the CUDA backend
// builds it at run time: with -D options, and wherever a GPU appears in a build that had no nvcc.
// nvcc's headers give a source what NVRTC's do not (INFINITY, <math.h>), so a fatbin that builds
// says nothing of this. The backend's options: the architecture and --std=c++17, no defines (each
// source's defaults). Arguments: the architecture (sm_90), then the sources.
#include <nvrtc.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::cerr << "usage: duet_nvrtc_sources sm_XY SOURCE.cu...\n";
        return 2;
    }
    const std::string architecture = std::string("--gpu-architecture=") + argv[1];
    int failed = 0;
    for (int i = 2; i < argc; ++i) {
        std::ifstream file(argv[i]);
        if (!file) {
            std::cerr << argv[i] << ": cannot be read\n";
            ++failed;
            continue;
        }
        std::stringstream text;
        text << file.rdbuf();
        const std::string source = text.str();
        nvrtcProgram program = nullptr;
        if (nvrtcCreateProgram(&program, source.c_str(), "duet_program.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
            std::cerr << argv[i] << ": nvrtcCreateProgram failed\n";
            ++failed;
            continue;
        }
        const char* options[] = {architecture.c_str(), "--std=c++17"};
        const nvrtcResult compiled = nvrtcCompileProgram(program, 2, options);
        if (compiled != NVRTC_SUCCESS) {
            std::size_t size = 0;
            nvrtcGetProgramLogSize(program, &size);
            std::string log(size, '\0');
            nvrtcGetProgramLog(program, log.data());
            log.resize(size > 0 ? size - 1 : 0); // the size counts the terminating null
            std::cerr << argv[i] << ": " << nvrtcGetErrorString(compiled) << "\n" << log << "\n";
            ++failed;
        } else {
            std::cout << argv[i] << ": compiled for " << argv[1] << "\n";
        }
        nvrtcDestroyProgram(&program);
    }
    std::cout << (argc - 2 - failed) << " of " << (argc - 2) << " CUDA sources compiled through NVRTC\n";
    return failed == 0 ? 0 : 1;
}
