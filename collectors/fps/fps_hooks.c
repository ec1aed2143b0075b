/*
 * fps_hooks.c - where frames come from: LD_PRELOAD wrappers of the frame
 * presentation calls, the proc-address look-ups that hand out those calls
 * (they return our wrapper, so a program that fetches its swap function at
 * run time is counted too), and hookscope_frame() for everything else.
 *
 * Each wrapper calls the real function (dlsym(RTLD_NEXT), or the pointer a
 * proc-address look-up returned) and then counts a frame: the frame is
 * presented when the call returns, which is also when programs (glxgears)
 * count theirs.  Nested wrappers count once (SDL_GL_SwapWindow calls
 * glXSwapBuffers or eglSwapBuffers).  Without the real function (the
 * library is not loaded) a wrapper does nothing and reports failure.
 * Vulkan: a device's functions are per device, so vkGetDeviceProcAddr's
 * result is kept per dispatch table (the first word of a VkDevice and its
 * VkQueues); the loader's trampoline serves queues of unknown devices.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define HOOKSCOPE_BUILDING_AGENT
#include "agent.h"
#include "bind.h"
#include "hookscope.h"
#include "fps_int.h"

#define API __attribute__((visibility("default")))
#define FPS_VK_DEVICES 8

typedef void   (*fps_glx_swap_fn)(void *dpy, unsigned long drawable);
typedef void  *(*fps_glx_proc_fn)(const unsigned char *name);
typedef unsigned (*fps_egl_swap_fn)(void *dpy, void *surface);
typedef unsigned (*fps_egl_damage_fn)(void *dpy, void *surface, const int32_t *rects, int32_t n);
typedef void  *(*fps_egl_proc_fn)(const char *name);
typedef void  *(*fps_vk_proc_fn)(void *handle, const char *name);
typedef int    (*fps_sdl_swap_fn)(void *window);

/* The part of VkPresentInfoKHR we read (layout of the Vulkan headers). */
struct fps_vk_present {
	int32_t         stype;
	const void     *next;
	uint32_t        nwait;
	const void     *wait;
	uint32_t        nswapchains;
	const uint64_t *swapchains;
};
typedef int32_t (*fps_vk_present_fn)(void *queue, const struct fps_vk_present *info);

/* Real functions, resolved on first use or learnt from proc-address calls. */
enum fps_real_id {
	FPS_R_GLX_SWAP, FPS_R_GLX_PROC, FPS_R_GLX_PROC_ARB, FPS_R_EGL_SWAP,
	FPS_R_EGL_DAMAGE_KHR, FPS_R_EGL_DAMAGE_EXT, FPS_R_EGL_PROC, FPS_R_VK_PRESENT,
	FPS_R_VK_INSTANCE_PROC, FPS_R_VK_DEVICE_PROC, FPS_R_SDL_SWAP, FPS_R_COUNT
};

static const char *const fps_real_names[FPS_R_COUNT] = {
	[FPS_R_GLX_SWAP]         = "glXSwapBuffers",
	[FPS_R_GLX_PROC]         = "glXGetProcAddress",
	[FPS_R_GLX_PROC_ARB]     = "glXGetProcAddressARB",
	[FPS_R_EGL_SWAP]         = "eglSwapBuffers",
	[FPS_R_EGL_DAMAGE_KHR]   = "eglSwapBuffersWithDamageKHR",
	[FPS_R_EGL_DAMAGE_EXT]   = "eglSwapBuffersWithDamageEXT",
	[FPS_R_EGL_PROC]         = "eglGetProcAddress",
	[FPS_R_VK_PRESENT]       = "vkQueuePresentKHR",
	[FPS_R_VK_INSTANCE_PROC] = "vkGetInstanceProcAddr",
	[FPS_R_VK_DEVICE_PROC]   = "vkGetDeviceProcAddr",
	[FPS_R_SDL_SWAP]         = "SDL_GL_SwapWindow",
};

static void *fps_reals[FPS_R_COUNT];      /* atomics (agent_real) */
AGENT_REALS(fps, fps_reals, fps_real_names, FPS_R_COUNT);
static struct { void *key, *fn; } fps_vk_dev[FPS_VK_DEVICES];

/* The real function id: learnt, else the next definition after ours. */
static void *fps_real(enum fps_real_id id)
{
	return agent_real(&fps_reals[id], fps_real_names[id], false);
}

/* A proc-address call returned real for id: keep it if we have none. */
static void fps_learn(enum fps_real_id id, void *real)
{
	void *none = NULL;

	if (real != NULL)
		__atomic_compare_exchange_n(&fps_reals[id], &none, real, false,
		    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* ---- GLX ---- */

/* See file comment. */
API void glXSwapBuffers(void *dpy, unsigned long drawable)
{
	fps_glx_swap_fn real = (fps_glx_swap_fn)fps_real(FPS_R_GLX_SWAP);
	bool outer;

	if (real == NULL)
		return;
	outer = fps_hot_enter();
	BIND_CALL(real(dpy, drawable));
	fps_hot_leave();
	if (outer)
		fps_hot_record(FPS_API_GLX, (const void *)drawable, NULL);
}

/* Our wrapper for a swap name, else what the library returned. */
static void *fps_glx_proc(enum fps_real_id id, const unsigned char *name)
{
	fps_glx_proc_fn real = (fps_glx_proc_fn)fps_real(id);
	void *p = real ? real(name) : NULL;

	if (p != NULL && name != NULL && strcmp((const char *)name, "glXSwapBuffers") == 0) {
		fps_learn(FPS_R_GLX_SWAP, p);
		return (void *)glXSwapBuffers;
	}
	return p;
}

/* See file comment. */
API void *glXGetProcAddress(const unsigned char *name)
{
	return fps_glx_proc(FPS_R_GLX_PROC, name);
}

/* See file comment. */
API void *glXGetProcAddressARB(const unsigned char *name)
{
	return fps_glx_proc(FPS_R_GLX_PROC_ARB, name);
}

/* ---- EGL ---- */

/* See file comment. */
API unsigned eglSwapBuffers(void *dpy, void *surface)
{
	fps_egl_swap_fn real = (fps_egl_swap_fn)fps_real(FPS_R_EGL_SWAP);
	unsigned ok;
	bool outer;

	if (real == NULL)
		return 0;
	outer = fps_hot_enter();
	BIND_CALL(ok = real(dpy, surface));
	fps_hot_leave();
	if (outer && ok)
		fps_hot_record(FPS_API_EGL, surface, NULL);
	return ok;
}

/* The damage variants share one body; id says which real one. */
static unsigned fps_egl_damage(enum fps_real_id id, void *dpy, void *surface,
    const int32_t *rects, int32_t n)
{
	fps_egl_damage_fn real = (fps_egl_damage_fn)__atomic_load_n(&fps_reals[id],
	    __ATOMIC_RELAXED);
	unsigned ok;
	bool outer;

	if (real == NULL)
		return 0;
	outer = fps_hot_enter();
	ok = real(dpy, surface, rects, n);
	fps_hot_leave();
	if (outer && ok)
		fps_hot_record(FPS_API_EGL, surface, NULL);
	return ok;
}

/* eglSwapBuffersWithDamageKHR, handed out by eglGetProcAddress only. */
static unsigned fps_egl_damage_khr(void *dpy, void *surface, const int32_t *rects, int32_t n)
{
	return fps_egl_damage(FPS_R_EGL_DAMAGE_KHR, dpy, surface, rects, n);
}

/* eglSwapBuffersWithDamageEXT, likewise. */
static unsigned fps_egl_damage_ext(void *dpy, void *surface, const int32_t *rects, int32_t n)
{
	return fps_egl_damage(FPS_R_EGL_DAMAGE_EXT, dpy, surface, rects, n);
}

/* See file comment. */
API void *eglGetProcAddress(const char *name)
{
	static const struct { enum fps_real_id id; void *ours; } swaps[] = {
		{ FPS_R_EGL_SWAP, (void *)eglSwapBuffers },
		{ FPS_R_EGL_DAMAGE_KHR, (void *)fps_egl_damage_khr },
		{ FPS_R_EGL_DAMAGE_EXT, (void *)fps_egl_damage_ext },
	};
	fps_egl_proc_fn real = (fps_egl_proc_fn)fps_real(FPS_R_EGL_PROC);
	void *p = real ? real(name) : NULL;

	for (size_t i = 0; p != NULL && name != NULL && i < sizeof swaps / sizeof swaps[0]; i++) {
		if (strcmp(name, fps_real_names[swaps[i].id]) == 0) {
			fps_learn(swaps[i].id, p);
			return swaps[i].ours;
		}
	}
	return p;
}

/* ---- Vulkan ---- */

/* The dispatch key of a dispatchable handle (VkDevice, VkQueue). */
static void *fps_vk_key(void *handle)
{
	return handle ? *(void **)handle : NULL;
}

/* Remember a device's vkQueuePresentKHR; a full table keeps the first ones. */
static void fps_vk_learn(void *device, void *fn)
{
	void *key = fps_vk_key(device);

	for (int i = 0; key != NULL && i < FPS_VK_DEVICES; i++) {
		void *k = NULL;

		if (__atomic_compare_exchange_n(&fps_vk_dev[i].key, &k, key, false,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || k == key) {
			__atomic_store_n(&fps_vk_dev[i].fn, fn, __ATOMIC_RELEASE);
			return;
		}
	}
}

/* The vkQueuePresentKHR for this queue's device. */
static fps_vk_present_fn fps_vk_present_of(void *queue)
{
	void *key = fps_vk_key(queue);

	for (int i = 0; key != NULL && i < FPS_VK_DEVICES; i++) {
		void *fn;

		if (__atomic_load_n(&fps_vk_dev[i].key, __ATOMIC_ACQUIRE) == key &&
		    (fn = __atomic_load_n(&fps_vk_dev[i].fn, __ATOMIC_ACQUIRE)) != NULL)
			return (fps_vk_present_fn)fn;
	}
	return (fps_vk_present_fn)fps_real(FPS_R_VK_PRESENT);
}

/* See file comment.  VK_ERROR_INITIALIZATION_FAILED without a real one. */
API int32_t vkQueuePresentKHR(void *queue, const struct fps_vk_present *info)
{
	fps_vk_present_fn real = fps_vk_present_of(queue);
	int32_t r;
	bool outer;

	if (real == NULL)
		return -3;
	outer = fps_hot_enter();
	BIND_CALL(r = real(queue, info));
	fps_hot_leave();
	/* VK_SUCCESS or VK_SUBOPTIMAL_KHR: the image was presented. */
	if (outer && (r == 0 || r == 1000001003))
		fps_hot_record(FPS_API_VULKAN, info && info->nswapchains && info->swapchains ?
		    (const void *)(uintptr_t)info->swapchains[0] : queue, NULL);
	return r;
}

API void *vkGetDeviceProcAddr(void *device, const char *name);

/* See file comment: the look-ups hand out our three functions. */
API void *vkGetInstanceProcAddr(void *instance, const char *name)
{
	fps_vk_proc_fn real = (fps_vk_proc_fn)fps_real(FPS_R_VK_INSTANCE_PROC);
	void *p = real ? real(instance, name) : NULL;

	if (p == NULL || name == NULL)
		return p;
	if (strcmp(name, "vkQueuePresentKHR") == 0) {
		fps_learn(FPS_R_VK_PRESENT, p);
		return (void *)vkQueuePresentKHR;
	}
	if (strcmp(name, "vkGetDeviceProcAddr") == 0) {
		fps_learn(FPS_R_VK_DEVICE_PROC, p);
		return (void *)vkGetDeviceProcAddr;
	}
	if (strcmp(name, "vkGetInstanceProcAddr") == 0)
		return (void *)vkGetInstanceProcAddr;
	return p;
}

/* See file comment. */
API void *vkGetDeviceProcAddr(void *device, const char *name)
{
	fps_vk_proc_fn real = (fps_vk_proc_fn)fps_real(FPS_R_VK_DEVICE_PROC);
	void *p = real ? real(device, name) : NULL;

	if (p == NULL || name == NULL)
		return p;
	if (strcmp(name, "vkQueuePresentKHR") == 0) {
		fps_vk_learn(device, p);
		return (void *)vkQueuePresentKHR;
	}
	if (strcmp(name, "vkGetDeviceProcAddr") == 0)
		return (void *)vkGetDeviceProcAddr;
	return p;
}

/* ---- SDL and the program itself ---- */

/* See file comment (SDL2 returns nothing, SDL3 a result: passed through). */
API int SDL_GL_SwapWindow(void *window)
{
	fps_sdl_swap_fn real = (fps_sdl_swap_fn)fps_real(FPS_R_SDL_SWAP);
	bool outer;
	int r;

	if (real == NULL)
		return -1;
	outer = fps_hot_enter();
	BIND_CALL(r = real(window));
	fps_hot_leave();
	if (outer)
		fps_hot_record(FPS_API_SDL, window, NULL);
	return r;
}

/* See hookscope.h. */
void hookscope_frame(void)
{
	fps_hot_record(FPS_API_APP, NULL, NULL);
}

/* See hookscope.h. */
void hookscope_frame_named(const char *name)
{
	fps_hot_record(FPS_API_APP, name, name);
}

/* The wrappers, for the binder (bind.h).  After an attach the look-ups are
 * not bound: a pointer they handed out would outlive a detach, so the
 * program keeps the library's own (frames presented through such a pointer
 * are not counted; doc/architecture.md, "fps/").  The swap calls are bound
 * in the program's modules and in the toolkits that make them. */
#define FPS_HOOKS(X) X(glXSwapBuffers, FPS_R_GLX_SWAP, 0) X(eglSwapBuffers, FPS_R_EGL_SWAP, 0) \
	X(vkQueuePresentKHR, FPS_R_VK_PRESENT, 0) X(SDL_GL_SwapWindow, FPS_R_SDL_SWAP, 0)       \
	X(glXGetProcAddress, FPS_R_GLX_PROC, BIND_NOATTACH)                                    \
	X(glXGetProcAddressARB, FPS_R_GLX_PROC_ARB, BIND_NOATTACH)                             \
	X(eglGetProcAddress, FPS_R_EGL_PROC, BIND_NOATTACH)                                    \
	X(vkGetInstanceProcAddr, FPS_R_VK_INSTANCE_PROC, BIND_NOATTACH)                        \
	X(vkGetDeviceProcAddr, FPS_R_VK_DEVICE_PROC, BIND_NOATTACH)
#define FPS_LOCAL(name, id, flags) BIND_LOCAL(name)
FPS_HOOKS(FPS_LOCAL)
#define FPS_BIND(name, id, flags) { #name, BIND_WRAPPER(name), &fps_reals[id], flags },
static const struct bind_fn fps_bind_fns[] = { FPS_HOOKS(FPS_BIND) };
const struct bind_table fps_bind = {
	.who = "fps", .libs = "libSDL2-2.0.so*:libSDL3.so*:libglut.so*:libglfw.so*",
	.fns = fps_bind_fns, .n = sizeof fps_bind_fns / sizeof fps_bind_fns[0],
};
