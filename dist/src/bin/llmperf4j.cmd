@echo off
rem Launcher for the llmperf4j command line on Windows (a release archive's bin\llmperf4j.cmd).
rem The same JVM options as bin/llmperf4j; LLMPERF4J_JAVA_OPTS comes after them and wins, and when it selects a
rem collector (-XX:+Use...GC) the serial one is left out (the JVM refuses two); when it sets the JIT's tiers or
rem threads, or the command is serve, the JIT options (C2 alone, one compiler thread) are left out too.
setlocal
set "LLMPERF4J_HOME=%~dp0.."
set "LLMPERF4J_JAR=%LLMPERF4J_HOME%\lib\llmperf4j.jar"
if not exist "%LLMPERF4J_JAR%" (
  echo llmperf4j: %LLMPERF4J_JAR% is missing; unpack the release archive again 1>&2
  exit /b 1
)
set "JAVA_CMD=java"
if defined JAVA_HOME if exist "%JAVA_HOME%\bin\java.exe" set "JAVA_CMD=%JAVA_HOME%\bin\java.exe"
set "GC_OPT=-XX:+UseSerialGC"
echo.%LLMPERF4J_JAVA_OPTS% | findstr /r /c:"-XX:+Use[A-Za-z0-9]*GC" >nul && set "GC_OPT="
set "JIT_OPTS=-XX:-TieredCompilation -XX:CICompilerCount=1"
echo.%LLMPERF4J_JAVA_OPTS% | findstr /c:"TieredCompilation" /c:"TieredStopAtLevel" /c:"CICompilerCount" >nul && set "JIT_OPTS="
if /i "%~1"=="serve" set "JIT_OPTS="
"%JAVA_CMD%" -Xms16m -XX:MaxNewSize=4m %GC_OPT% -XX:MinHeapFreeRatio=40 -XX:MaxHeapFreeRatio=70 %JIT_OPTS% -XX:CompileCommand=quiet -XX:CompileCommand=exclude,jdk.internal.org.objectweb.asm.Frame::execute %LLMPERF4J_JAVA_OPTS% -Dai.djl.offline=true -jar "%LLMPERF4J_JAR%" %*
exit /b %ERRORLEVEL%
