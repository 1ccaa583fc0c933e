{-# LANGUAGE BangPatterns, CPP, ExistentialQuantification, OverloadedStrings #-}
-- | crossings: the Haskell worker (runtimes `haskell` and `haskell-O0`).
--
-- One fresh process of one cell, like `python -m harness.worker`, speaking the same protocol
-- (docs/ARCHITECTURE.md "Worker protocol"). Built on demand by harness/run/haskell/launcher.py:
--
--   bench --probe ENGINE [CONFIG.json]
--       one JSON line: availability, reason, runtime, versions, capabilities.
--   bench SPEC.json RESULT.json
--       untimed set-up, then the spec's iterations, each timed around the operation alone
--       (GHC.Clock.getMonotonicTimeNSec for wall, System.CPUTime.getCPUTime for process CPU,
--       read in the Python worker's order: wall, cpu, operation, cpu, wall), the result forced
--       to normal form inside the timed region and checked after the clock stops; writes the
--       result JSON atomically.
module Main (main) where

import Control.DeepSeq (NFData, force)
import Control.Exception
import qualified Data.Aeson as A
import qualified Data.Aeson.Key as K
import qualified Data.ByteString.Lazy.Char8 as BL8
import Data.Int (Int64)
import Data.Version (showVersion)
import GHC.Clock (getMonotonicTimeNSec)
import System.CPUTime (getCPUTime)
import System.Environment (getArgs)
import System.Exit
import System.IO
import System.Info (fullCompilerVersion)
import System.Mem (performMajorGC)
import System.FilePath ((</>))
import System.Posix.Process (getProcessID)

import qualified App
import Bindings
import Protocol

#ifndef CROSSINGS_OPT
#define CROSSINGS_OPT "unknown"
#endif

-- | The runtime as the raw rows record it: `haskell-O2-ghc9.0.2` (family, then toolchain).
runtimeName :: String
runtimeName = family ++ "-ghc" ++ showVersion fullCompilerVersion
  where family = if CROSSINGS_OPT == ("O2" :: String) then "haskell-O2" else "haskell-" ++ CROSSINGS_OPT

-- | A benchmark ready to time: the operation, its check, its counts (crossings, values).
data Bench = forall a. NFData a => Bench
  { benchOp :: IO a
  , benchCheck :: a -> IO (Maybe String)
  , benchCounts :: a -> IO (Maybe Int64, Maybe Int64)
  }

data Setup = Ready Bench (IO ()) | NotApplicable String

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  args <- getArgs
  case args of
    ["--probe", engine] -> probe engine Nothing >>= BL8.putStrLn . A.encode
    ["--probe", engine, config] -> probe engine (Just config) >>= BL8.putStrLn . A.encode
    [specPath, resultPath] -> runWorker specPath resultPath
    _ -> do
      hPutStrLn stderr "usage: bench SPEC.json RESULT.json | --probe ENGINE [CONFIG.json]"
      exitWith (ExitFailure 2)

-- ---------------------------------------------------------------- probe

probe :: String -> Maybe FilePath -> IO A.Value
probe engine configPath = do
  config <- maybe (return mempty) readConfig configPath
  let unavailable r = return (A.object ["available" A..= False, "reason" A..= r, "runtime" A..= runtimeName])
      base vs caps = A.object
        [ "available" A..= True, "reason" A..= ("" :: String), "runtime" A..= runtimeName
        , "versions" A..= A.object ([(K.fromString k, A.toJSON v) | (k, v) <- ("driver", driverOf engine) : vs]
                                    ++ ["ghc" A..= showVersion fullCompilerVersion, "optimisation" A..= ("-" ++ CROSSINGS_OPT)])
        , "capabilities" A..= A.object (["benchmarks" A..= benchmarksOf engine, "scalar_callbacks" A..= False,
                                         "aggregate_callbacks" A..= False] ++ caps) ]
      server = isServer engine
  case () of
    _ | engine `notElem` (engineNames ++ App.engineNames) ->
          unavailable ("no Haskell implementation of " ++ engine ++ " (Haskell engines: "
                       ++ unwords (engineNames ++ App.engineNames) ++ ")")
      | server, Just why <- configString "unavailable" config -> unavailable why
      | engine `elem` App.engineNames -> return (base [] [])  -- in-process store: nothing to connect to
      | server, Nothing <- configString "dsn" config ->
          -- `list` without a server: the program is built; a run starts a server or takes --dsn
          return (base [("server", maybe "no server connected" id (configString "note" config))] [])
      | otherwise -> do
          r <- try (withEngine engine ":memory:" (configString "dsn" config) connVersionsOf)
          case r of
            Left e -> unavailable ((if server then "cannot connect: " else "") ++ oneLine (show (e :: SomeException)))
            Right vs -> return (base vs [])
  where
    connVersionsOf c = connVersions c
    readConfig p = do
      bytes <- BL8.readFile p
      case A.eitherDecode bytes of
        Right (A.Object o) -> return o
        _ -> return mempty

driverOf :: String -> String
driverOf engine
  | engine `elem` App.engineNames = App.driverVersion engine
  | otherwise = driverVersion engine

isServer :: String -> Bool
isServer engine = takeWhile (/= '/') engine == "postgresql"

oneLine :: String -> String
oneLine = unwords . words

benchmarksOf :: String -> [String]
benchmarksOf engine
  | engine `elem` App.engineNames = App.benchmarks
  | engine `elem` App.hdbcEngines = e1 ++ App.benchmarks
  | otherwise = e1
  where e1 = ["bindings.select_fold", "bindings.select_all", "selftest.wrong"]

-- | Run `act` on an open connection of a Bindings engine; close it however `act` ends.
withEngine :: String -> FilePath -> Maybe String -> (Conn -> IO a) -> IO a
withEngine engine path dsn act = do
  mc <- openConn engine path dsn
  case mc of
    Nothing -> ioError (userError ("no E1 implementation of " ++ engine))
    Just c -> act c `finally` connClose c

-- ---------------------------------------------------------------- worker

runWorker :: FilePath -> FilePath -> IO ()
runWorker specPath resultPath = do
  pid <- fromIntegral <$> getProcessID
  spec <- readSpec specPath
  outcome <- try (runSpec spec)
  case outcome of
    Right r -> writeJsonAtomic resultPath (resultValue pid runtimeName [] r)
    Left e -> do
      let msg = oneLine (displayException (e :: SomeException))
      hPutStrLn stderr ("error: " ++ msg)
      writeJsonAtomic resultPath (resultValue pid runtimeName [("traceback", A.toJSON msg)]
                                    emptyResult { resStatus = "error", resReason = msg })
      exitWith (ExitFailure 1)

runSpec :: Spec -> IO Result
runSpec spec = do
  setup <- setUp spec
  case setup of
    NotApplicable why -> return emptyResult { resStatus = "not_applicable", resReason = why }
    Ready bench teardown -> timeAll spec bench `finally` teardown

-- | Open the engine and set the benchmark up (untimed).
setUp :: Spec -> IO Setup
setUp spec
  | engine `elem` App.engineNames || (bench `elem` App.benchmarks && engine `elem` App.hdbcEngines) = do
      r <- App.setUp engine bench spec
      return $ case r of
        Left why -> NotApplicable why
        Right (App.AppBench op check counts, close) -> Ready (Bench op check counts) close
  | engine `notElem` engineNames = return (NotApplicable ("no Haskell implementation of " ++ engine))
  | bench `notElem` benchmarksOf engine =
      return (NotApplicable ("no Haskell implementation of " ++ bench ++ " on " ++ engine))
  | otherwise = do
      mc <- openConn engine (specWorkdir spec </> "bench.db") (configString "dsn" (specConfig spec))
      case mc of
        Nothing -> return (NotApplicable ("no Haskell implementation of " ++ engine))
        Just c -> (Ready <$> e1Bench c <*> pure (connClose c)) `onException` connClose c
  where
    engine = specEngine spec
    bench = specBenchmark spec
    e1Bench c = case bench of
      "selftest.wrong" ->
        return (Bench (connScalar c "SELECT 41")
                      (\v -> return (if v == 42 then Nothing else Just ("expected 42, got " ++ show v)))
                      (\_ -> return (Just 1, Just 1)))
      _ -> do
        let n = maybe 10000 id (paramInt "n" spec)
            expected = n * (n + 1) `div` 2
            check v = return (if v == expected then Nothing
                              else Just ("checksum " ++ show v ++ " != N(N+1)/2 = " ++ show expected))
            counts _ = do
              (rows, values) <- connCount c
              return (Just rows, Just values)
        connLoad c n
        return (Bench (if bench == "bindings.select_fold" then connFold c else connAll c) check counts)

-- | The timed loop: as harness/worker.py, including the optional time budget.
timeAll :: Spec -> Bench -> IO Result
timeAll spec (Bench op check counts) = do
  performMajorGC
  go 0 0 emptyResult Nothing
  where
    iterations = specIterations spec
    budgetNs = floor (specBudgetS spec * 1e9) :: Int64
    minIterations = specMinIterations spec
    go !i !spent !r firstFailure
      | i >= iterations = finish r firstFailure
      | otherwise = do
          t0 <- getMonotonicTimeNSec
          c0 <- getCPUTime
          v <- op
          v' <- evaluate (force v)
          c1 <- getCPUTime
          t1 <- getMonotonicTimeNSec
          problem <- check v'
          let wall = fromIntegral (t1 - t0) :: Int64
              cpu = fromIntegral ((c1 - c0) `div` 1000) :: Int64
              failure = case (firstFailure, problem) of
                (Nothing, Just p) -> Just ("iteration " ++ show i ++ ": " ++ p)
                _ -> firstFailure
          (cr, vals) <- if i == 0 then counts v' else return (resCrossings r, resValues r)
          let r' = r { resWall = wall : resWall r, resCpu = cpu : resCpu r
                     , resOk = (problem == Nothing) : resOk r, resCrossings = cr, resValues = vals }
              spent' = spent + wall
          if budgetNs > 0 && spent' >= budgetNs && i + 1 >= minIterations && i + 1 < iterations
            then finish r' { resBudgetStop = Just ("time budget of " ++ show1 (specBudgetS spec)
                                                   ++ " s spent after " ++ show (i + 1) ++ " of "
                                                   ++ show iterations ++ " iterations") } failure
            else go (i + 1) spent' r' failure
    finish r failure = return $ case failure of
      Just f -> r { resStatus = "invalid", resReason = "wrong result: " ++ f }
      Nothing -> r { resStatus = "ok", resReason = "" }
    show1 x = let t = fromIntegral (round (x * 10) :: Integer) / 10 :: Double in show t
