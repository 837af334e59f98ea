/* The user API from C: the headers compile as C and the library links with a plain
 * `cc ... -lrocprof-sys-user`; without a profiler every call returns NO_BINDING. */
#include <rocprofiler-systems/user.h>
#include <stdio.h>

int main(void) {
  rocprofsys_user_callbacks_t callbacks = ROCPROFSYS_USER_CALLBACKS_INIT;
  int value = 1;
  rocprofsys_annotation_t annotation = {"value", ROCPROFSYS_VALUE_INT32, &value};
  int failures = 0;
  failures += rocprofsys_user_push_region("c") != ROCPROFSYS_USER_ERROR_NO_BINDING;
  failures += rocprofsys_user_pop_region("c") != ROCPROFSYS_USER_ERROR_NO_BINDING;
  failures +=
      rocprofsys_user_annotated_progress("c", &annotation, 1) != ROCPROFSYS_USER_ERROR_NO_BINDING;
  failures += rocprofsys_user_get_callbacks(&callbacks) != ROCPROFSYS_USER_SUCCESS;
  failures += callbacks.push_region != NULL;
  printf("%s\n", rocprofsys_user_error_string(ROCPROFSYS_USER_ERROR_NO_BINDING));
  return failures;
}
